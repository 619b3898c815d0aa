/*
 * apps/options: what `npm run bench:apps -- [options]` (benchmark/apps/run.js) accepts, and its
 * --help text.
 *
 * Owns the command line only: parseArgs() turns it into the options object the runner and the
 * report read, or throws a UsageError saying why it cannot.
 * It must never run anything.
 */
'use strict';

const path = require('path');
const { ORDER } = require('./child');

const ROOT = path.resolve(__dirname, '..', '..');

const HELP = `usage: npm run bench:apps -- [options]     (or: node benchmark/apps/run.js [options])

Runs application workloads natively and with qtimers preloaded, in fresh processes, the two
side by side (http: one at a time, alternating), and prints each figure's median and the
qtimers advantage (median of per-round ratios, range), with the share of CPU that Node's
timers take in the native run (from a --cpu-prof profile).

  --quick         one round of shorter runs (under 2 minutes); writes to
                  benchmark/results/quick/ (git-ignored): indicative figures only
  --rounds N      native+qtimers rounds (default 5, 1 with --quick)
  --only NAMES    only these workloads, comma-separated (${ORDER.join(', ')});
                  writes no results
  --node PATH     run the workloads with this node binary (default: ${process.execPath})
  --qtimers PATH  preload this qtimers entry point instead of this repository's index.js
  --alone         run every workload one process at a time, native and qtimers
                  alternating, rather than the two side by side (two processes at once,
                  as every workload but http runs by default); writes no results
  --help          this text

A full run (about 7 minutes) replaces benchmark/results/apps.md and apps.svg.`;

class UsageError extends Error {}

function parseArgs(argv) {
  const opts = { quick: false, rounds: undefined, only: null, node: process.execPath,
    qtimers: path.join(ROOT, 'index.js'), alone: false, help: false };
  function value(i) {
    if (i >= argv.length || argv[i].startsWith('--')) throw new UsageError(argv[i - 1] + ': missing value');
    return argv[i];
  }
  for (let i = 0; i < argv.length; i++) {
    switch (argv[i]) {
      case '--quick': opts.quick = true; break;
      case '--rounds': {
        const text = value(++i);
        const n = Number(text);
        if (!(Number.isInteger(n) && n >= 1)) throw new UsageError('--rounds: expected a positive integer, got ' + text);
        opts.rounds = n;
        break;
      }
      case '--only': {
        const names = value(++i).split(',').map((name) => name.trim()).filter(Boolean);
        const unknown = names.filter((name) => !ORDER.includes(name));
        if (unknown.length || !names.length) {
          throw new UsageError('--only: unknown workload ' + (unknown.join(', ') || '(none)') + ' (known: ' + ORDER.join(', ') + ')');
        }
        opts.only = ORDER.filter((name) => names.includes(name));
        break;
      }
      case '--node': opts.node = value(++i); break;
      case '--qtimers': opts.qtimers = path.resolve(value(++i)); break;
      case '--alone': opts.alone = true; break;
      case '--help': case '-h': opts.help = true; break;
      default: throw new UsageError(argv[i] + ': unknown option (see --help)');
    }
  }
  if (opts.rounds === undefined) opts.rounds = opts.quick ? 1 : 5;
  opts.size = opts.quick ? 'quick' : 'full';
  opts.workloads = opts.only || ORDER.slice();
  return opts;
}

module.exports = { parseArgs, UsageError, HELP };
