// Type declarations for `import ... from 'qtimers'` (and 'qtimers/install', 'qtimers/register'):
// the API of standalone.d.mts, default and named exports, plus what installing adds to the
// globals (global.d.ts).
import './global.js';

export * from './standalone.mjs';
export { default } from './standalone.mjs';
