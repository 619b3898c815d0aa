/*
 * options: what `npm run bench -- [options]` (benchmark/micro/run.js) accepts, and its --help text.
 *
 * Owns the command line only: parseArgs() turns it into the options object the runner and the
 * report read, or prints why it cannot (exit status 2).
 * It must never run anything.
 */
'use strict';

const path = require('path');

// What a --quick run of every scenario takes on an idle 2-core machine (31 s measured on Node 20:
// 13 s of fixed wall-clock windows, the rest 25 s of CPU in 64 processes, one at a time).  Other
// work on the machine stretches the CPU part (3 minutes at a load average of 10), so --help
// states the idle time, and a run that took much longer says so, since the same load that
// slowed it also moved its numbers.
const QUICK_SECONDS = 30;
const LOAD_POSITIONS = ['preload', 'require'];

const HELP = [
  'usage: npm run bench -- [options]     (or: node benchmark/micro/run.js [options])',
  '',
  'Runs each scenario natively and with qtimers preloaded (or --load require), in fresh processes, alternating,',
  'and prints native rate, qtimers rate and speedup (median over rounds).',
  '',
  '  --quick         every scenario once, shorter timings: about ' + QUICK_SECONDS + ' s on an idle 2-core machine,',
  '                  longer on a busy one; its numbers are indicative only and go to',
  '                  benchmark/results/quick/, not to the committed results',
  '  --rounds N      how many native+qtimers rounds to run (default 3, 1 with --quick)',
  '  --only REGEX    only the scenarios whose id or label matches, e.g. --only "^cpu/"',
  '  --node PATH     run the scenarios with this node binary (default: ' + process.execPath + ')',
  '  --depth N       set setImmediate.maxTickDepth = N in the qtimers runs (0 = node semantics)',
  '  --als           run every scenario with an AsyncLocalStorage store active',
  '  --load WHERE    where the qtimers runs load it: preload (node -r, the default) or require',
  '                  (require()d on the first line of the main module); a full run with',
  '                  --load require writes benchmark/results/table-require.md (no chart); with --node,',
  '                  the file names end in -node<major> (table-node24.md), with --als in -als',
  '  --qtimers PATH  preload this qtimers entry point instead of this repository\'s index.js',
  '                  (another version or build, against native); writes no results',
  '  --no-chart      write table.md only, not chart.svg (a full run writes both to benchmark/results/,',
  '                  a run with --only and without --quick writes neither)',
  '  --list          list the scenario ids and exit',
  '  --help          this text',
].join('\n');

function parseArgs(argv) {
  const opts = {
    quick: false, rounds: undefined, only: undefined, node: process.execPath,
    depth: undefined, als: false, chart: true, list: false, qtimers: undefined, load: 'preload',
  };
  function value(i) {
    if (i >= argv.length) fail(argv[i - 1] + ': missing value');
    return argv[i];
  }
  for (let i = 0; i < argv.length; i++) {
    switch (argv[i]) {
      case '--quick': opts.quick = true; break;
      case '--rounds': opts.rounds = positiveInt('--rounds', value(++i)); break;
      case '--only': opts.only = new RegExp(value(++i)); break;
      case '--node': opts.node = value(++i); break;
      case '--depth': opts.depth = Number(value(++i)); if (isNaN(opts.depth)) fail('--depth: not a number'); break;
      case '--als': opts.als = true; break;
      case '--load': opts.load = oneOf('--load', value(++i), LOAD_POSITIONS); break;
      case '--qtimers': opts.qtimers = path.resolve(value(++i)); break;
      case '--no-chart': opts.chart = false; break;
      case '--list': opts.list = true; break;
      case '--help': case '-h': console.log(HELP); process.exit(0); break;
      default: fail(argv[i] + ': unknown option (see --help)');
    }
  }
  if (opts.rounds === undefined) opts.rounds = opts.quick ? 1 : 3;
  return opts;
}

function oneOf(name, str, allowed) {
  if (!allowed.includes(str)) fail(name + ': expected one of ' + allowed.join(', ') + ', got ' + str);
  return str;
}

function positiveInt(name, str) {
  const n = Number(str);
  if (!(n >= 1 && n === Math.floor(n))) fail(name + ': expected a positive integer, got ' + str);
  return n;
}

/* a usage error (or one the runner finds in the scenario files): said, and exit status 2 */
function fail(message) {
  console.error('run.js: ' + message);
  process.exit(2);
}

module.exports = { parseArgs, fail, QUICK_SECONDS };
