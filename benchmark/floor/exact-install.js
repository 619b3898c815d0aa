'use strict';
// `node -r benchmark/floor/exact-install.js`: the exact floor, a clock read per arming
// (benchmark/floor/timers.js), over the global timer functions it has (micro/runner.js's 'exact' mode).
require('./timers').install(true);
