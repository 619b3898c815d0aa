'use strict';
// `node -r benchmark/floor/install.js`: the floor that shares one clock reading per section
// (benchmark/floor/timers.js) over the global timer functions it has, as `-r qtimers`
// installs qtimers (micro/runner.js's 'floor' mode).
require('./timers').install(false);
