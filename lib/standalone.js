'use strict';
// The qtimers API without installing it: the same functions, handles and knobs, globals untouched.
module.exports = require('./install');
