'use strict';
// `node -r benchmark/floor-install.js`: the floor of benchmark/floor.js over the global
// setImmediate and setTimeout, as `-r qtimers` installs qtimers (run.js's 'floor' mode).
require('./floor').install();
