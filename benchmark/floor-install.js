'use strict';
// `node -r benchmark/floor-install.js`: the floor (benchmark/floor-timers.js) over the global
// setImmediate and setTimeout, as `-r qtimers` installs qtimers (run.js's 'floor' mode).
require('./floor-timers').install();
