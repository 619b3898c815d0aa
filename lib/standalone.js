'use strict';
// standalone: the qtimers API without installing it: the same functions, handles and knobs.
// It must never install qtimers or touch a global (install.js's module does neither at load).
module.exports = require('./install');
