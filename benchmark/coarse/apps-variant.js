/*
 * coarse/apps-variant: an application workload of `npm run bench:apps` (benchmark/apps/workloads/)
 * run with qtimers' coarse mode switched on the way a user of `node -r qtimers` would, with no
 * change to the program: QTIMERS_COARSE=1 in the environment (run.js gives every child of a
 * workload its `env`; natively it is ignored), at the default threshold of 1000 ms.
 *
 * variant(base, coarseTimersMs) takes the workload module and a function that gives, for a size,
 * the shortest delay among the timers meant to be coarse (the idle timeouts and pings, the cache
 * entries' timers); the variant has the base's sizes but for smoke, which is lengthened so that
 * those timers reach the threshold too.  Its run() refuses to measure under a qtimers whose
 * coarse mode is not on, or whose threshold those timers do not reach (an exact run would pass
 * for a coarse one), and adds to the base's extra figures what qtimers.stats() says of its
 * coarse timers at the end, so a run shows that they were coarse.
 * It must never change what the base workload does, nor turn coarse mode on itself.
 */
'use strict';

const ENV = { QTIMERS_COARSE: '1' };

/* under qtimers, its coarse settings, after checking they make timers of `shortestMs` coarse; natively null */
function coarseSettings(shortestMs) {
  if (typeof setImmediate.maxTickDepth !== 'number') return null;
  if (!('coarse' in setTimeout)) throw new Error('this qtimers has no coarse mode (no setTimeout.coarse)');
  if (setTimeout.coarse !== true) throw new Error('QTIMERS_COARSE=1 did not turn coarse mode on');
  if (!(setTimeout.coarseFrom <= shortestMs)) {
    throw new Error('the coarse threshold (' + setTimeout.coarseFrom + ' ms) is above the timers meant to be coarse (' + shortestMs + ' ms)');
  }
  return { from: setTimeout.coarseFrom };
}

/* every entry of a qtimers.stats() object whose key names coarse timers, wherever it is */
function coarseStats(stats) {
  const found = {};
  (function walk(value, where) {
    if (!value || typeof value !== 'object') return;
    for (const key of Object.keys(value)) {
      if (/coarse/i.test(key)) found[where + key] = value[key];
      else walk(value[key], where + key + '.');
    }
  })(stats, '');
  return found;
}

function variant(base, coarseTimersMs, smoke) {
  const sizes = Object.assign({}, base.sizes, { smoke });
  for (const name of Object.keys(sizes)) {
    if (coarseTimersMs(sizes[name]) < 1000) throw new Error(base.title + ', ' + name + ': timers meant to be coarse under 1000 ms');
  }
  return Object.assign({}, base, {
    title: base.title + ', coarse timers',
    describe: base.describe + '; qtimers with QTIMERS_COARSE=1 (every timer of 1 s or more coarse: never early, ' +
      'at most 1/8 of its delay late)',
    env: ENV,
    sizes,
    run(size, meter, done) {
      const settings = coarseSettings(coarseTimersMs(size));
      base.run(size, meter, function coarseDone(metrics, extra) {
        done(metrics, Object.assign({}, extra, settings ? { coarseFrom: settings.from, coarseStats: coarseStats(require('../..').stats()) } : {}));
      });
    },
  });
}

module.exports = { variant, coarseStats, ENV };
