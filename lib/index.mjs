// `import qtimers from 'qtimers'`, `import { setTimeout } from 'qtimers'`: installs over the global
// timers, as require('qtimers') does (it is the same module underneath), and gives the same API.
// An import of 'qtimers/install' or 'qtimers/register' (`node --import qtimers/register`) is this
// module too, so `import { isInstalled } from 'qtimers/register'` works.
import '../index.js';

export * from './standalone.mjs';
export { default } from './standalone.mjs';
