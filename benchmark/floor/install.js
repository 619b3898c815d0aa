'use strict';
// `node -r benchmark/floor/install.js`: the floor that shares one clock reading per section
// (benchmark/floor/timers.js) over the global setImmediate and setTimeout, as `-r qtimers`
// installs qtimers (micro/runner.js's 'floor' mode).
require('./timers').install(false);
