// `import qtimers from 'qtimers'`, `import { setTimeout } from 'qtimers'`: installs over the global
// timers, as require('qtimers') does (it is the same module underneath), and gives the same API.
import '../index.js';

export * from './standalone.mjs';
export { default } from './standalone.mjs';
