'use strict';
// require('qtimers') installs qtimers over the global timers, as it always has, and returns the
// API.  require('qtimers/standalone') returns the same API without touching any global.
module.exports = require('./lib/install').install();
