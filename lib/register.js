'use strict';
// Installation as a side effect, before the application's first line: `node -r qtimers/register`,
// `node --import qtimers/register`, `import 'qtimers/install'`.  Loading it is loading qtimers
// itself, so it installs once however many of these a program uses, and returns the same API.
module.exports = require('../index.js');
