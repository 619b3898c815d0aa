// The qtimers API for ES modules, globals untouched: `import { setTimeout } from 'qtimers/standalone'`.
// Named exports are spelled out: Node cannot find them in install.js's `module.exports = qtimers`.
import qtimers from './standalone.js';

export default qtimers;
export const {
  install, uninstall, isInstalled,
  setImmediate, clearImmediate,
  setTimeout, clearTimeout,
  setInterval, clearInterval,
  currentTimestamp, trackAsyncContext, coarse,
  stats, pending, trackOrigins, report,
  Timeout, Immediate,
} = qtimers;
