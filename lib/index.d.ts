// Type declarations for require('qtimers'), 'qtimers/install' and 'qtimers/register': the API
// object of standalone.d.ts, and, since these install qtimers, its knobs on the global timer
// functions and the global currentTimestamp() (global.d.ts).

/// <reference types="node" />

import qtimers = require('./standalone.js');
import './global.js';

export = qtimers;
