/*
 * coarse/child: one measured process of `npm run bench:coarse`: one scenario (scenarios.js) at
 * one size, in whatever build the command line and environment make (run.js: no preload for
 * native, `-r qtimers` for exact, and QTIMERS_COARSE=1 beside it for coarse).
 *
 *     node [-r qtimers] benchmark/coarse/child.js SCENARIO SIZE
 *
 * Prints one line run.js parses, with the scenario's figures and which timers ran them:
 *
 *     RESULT {"figures": {...}, "timers": "native" | "qtimers", "coarse": {...} | null, "stats": ...}
 *
 * `coarse` is what qtimers says of its coarse mode (setTimeout.coarse and coarseFrom), or null
 * when this qtimers has none; `stats` is qtimers.stats() at the end (null natively).
 * It must never turn coarse mode on or off itself: the build is decided outside, so that the
 * coarse build measures the switch a user flips.
 */
'use strict';

const { SCENARIOS } = require('./scenarios');

/* native, or qtimers (installed by a preload), and what qtimers says of coarse mode */
function describeTimers() {
  if (typeof setImmediate.maxTickDepth !== 'number') return { timers: 'native', coarse: null, qtimers: null };
  const qtimers = require('../..');
  const coarse = 'coarse' in setTimeout
    ? { on: setTimeout.coarse, from: setTimeout.coarseFrom, perTimer: typeof qtimers.coarse === 'function' }
    : null;
  return { timers: 'qtimers', coarse, qtimers };
}

function main(argv) {
  const scenario = SCENARIOS[argv[0]];
  if (!scenario) throw new Error(argv[0] + ': no such scenario (' + Object.keys(SCENARIOS).join(', ') + ')');
  const size = scenario.sizes[argv[1] || 'full'];
  if (!size) throw new Error(argv[1] + ': no such size (full, quick, smoke)');
  const { timers, coarse, qtimers } = describeTimers();
  scenario.run(size, function done(figures) {
    const stats = qtimers ? qtimers.stats() : null;
    process.stdout.write('RESULT ' + JSON.stringify({ figures, timers, coarse, stats }) + '\n');
    process.exit(0);
  });
}

if (require.main === module) main(process.argv.slice(2));

module.exports = { describeTimers };
