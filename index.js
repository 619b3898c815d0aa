'use strict';
// require('qtimers') installs qtimers over the global timers, as it always has, and returns the
// API; so do require('qtimers/install') and `node -r qtimers/register` (the same file: "exports"
// in package.json), however many of them a program uses.  An `import` of any of them gets
// lib/index.mjs, the same module underneath with the API as real named exports.
// require('qtimers/standalone') returns the same API without touching any global.
module.exports = require('./lib/install').install();
