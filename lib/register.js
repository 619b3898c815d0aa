'use strict';
// Installation as a side effect, before the application's first line: `node -r qtimers/register`,
// `require('qtimers/install')`.  Loading it is loading qtimers itself, so it installs once however
// many of these a program uses, and returns the same API.  An `import` of 'qtimers/register' or
// 'qtimers/install' (`node --import qtimers/register`) gets index.mjs instead ("exports" in
// package.json): the same module underneath, with the API as real named exports, which Node
// cannot find in this file's `module.exports = require(...)`.
module.exports = require('../index.js');
