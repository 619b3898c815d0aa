/*
 * apps/bounds: `npm run bench:bounds`, the most any timers library could win on the two
 * workloads whose timers are a large share of the work but where qtimers is only level with
 * native (heartbeats, TTL cache).
 *
 * Each workload runs natively, with qtimers, and with stand-ins for its timers that do less than
 * any working timer can (bounds/: timers that cost nothing; for heartbeats, idle timeouts that
 * only read the clock and stamp themselves, the least an exact refresh() does, alone and
 * beside qtimers' own pings, and idle timeouts that only write a field of their own, the least
 * a coarse refresh() of a handle does; for the TTL cache, entry timers that only keep their
 * callback until it is due and call it, the least a timer that fires does, and the same with a
 * handle each and no clock read, the least a coarse one does), in fresh processes, each
 * variant side by side with a native run once a round (two processes at once, as bench:apps
 * runs its workloads, which starts first alternating).  It prints each variant's median figure and its advantage over the native run
 * beside it (median of per-round ratios, range), qtimers' share of its exact bound from the two
 * run side by side, and, after a full run, writes the table to
 * benchmark/results/bounds.md.  If a stand-in that does less than a working timer must wins
 * less than a target over native, no library can reach that target.
 * It must never present a stand-in as an implementation: they drop work (bounds/ says which).
 */
'use strict';

const fs = require('fs');
const path = require('path');
const { runSideBySide, checkEnvironment } = require('./runner');
const { otherNode } = require('../micro/runner');
const { UsageError } = require('./options');
const { load } = require('./child');
const { formatFigure } = require('../shared/chart');
const { median, advantage } = require('../shared/statistics');

const ROOT = path.join(__dirname, '..', '..');
const BOUNDS_DIR = path.join(__dirname, 'bounds');
const RESULTS_DIR = path.join(ROOT, 'benchmark', 'results');

/* where a full run of the Node at `nodePath` (`version`) is written: bounds.md, bounds-nodeN.md for another */
function resultFile(nodePath, version) {
  return path.join(RESULTS_DIR, 'bounds' + otherNode(nodePath, version) + '.md');
}

// workload -> the figure compared, and the variants besides native, each with what is preloaded,
// in order (null: this qtimers), and the workload it runs if not the row's own (with the native run beside it)
const PLAN = [
  { name: 'heartbeats', metric: 'cpuPerMessage', variants: [
    { label: 'qtimers', preloads: [null] },
    { label: 'idle timeouts that only read the clock and stamp themselves', preloads: ['idle-stamp.js'] },
    // qtimers' pings and arrivals, and idle timeouts that cost no more than an exact refresh()
    // must: the most a qtimers of any design for the idle timeouts could win
    { label: 'qtimers, with idle timeouts that only read the clock and stamp themselves', preloads: [null, 'idle-stamp.js'] },
    // qtimers' pings and arrivals, and idle timeouts each of its own whose refresh() writes one
    // of its fields and reads no clock: the least a coarse refresh() of a handle can do
    { label: 'qtimers, with idle timeouts that only write a field of their own', preloads: [null, 'idle-touch.js'] },
    { label: 'idle timeouts that cost nothing', preloads: ['idle-free.js'] },
    // qtimers' pings and arrivals, and idle timeouts that cost nothing: the most any mode of
    // qtimers could win without making its pings cheaper (coarse pings cost what exact ones do)
    { label: 'qtimers, with idle timeouts that cost nothing', preloads: [null, 'idle-free.js'] },
    // qtimers' opt-in coarse mode (issue 32): the same workload with QTIMERS_COARSE=1
    { label: 'qtimers, coarse timers (QTIMERS_COARSE=1)', preloads: [null], workload: 'heartbeats-coarse' },
  ],
  // qtimers paired with its exact bound directly, side by side: its share of the bound from one
  // pair a round, not from two advantages over two native runs (whose noise both carry)
  shares: [{ label: 'qtimers / its exact bound', of: 'qtimers',
    bound: 'qtimers, with idle timeouts that only read the clock and stamp themselves' }] },
  { name: 'ttl-cache', metric: 'opsPerCpuSecond', variants: [
    { label: 'qtimers', preloads: [null] },
    { label: 'entry timers that only keep their callback until it is due, and call it', preloads: ['ttl-fire.js'] },
    { label: 'entry timers with a handle each, armed without a clock read, kept until due and called', preloads: ['ttl-handle.js'] },
    { label: 'entry timers that cost nothing (and never run)', preloads: ['ttl-free.js'] },
    { label: 'qtimers, coarse timers (QTIMERS_COARSE=1)', preloads: [null], workload: 'ttl-cache-coarse' },
  ] },
];

const HELP = `usage: npm run bench:bounds -- [options]     (or: node benchmark/apps/bounds.js [options])

Runs the heartbeats and TTL cache workloads natively, with qtimers, and with stand-ins for their
timers that do less than any timers library can (benchmark/apps/bounds/), each beside a native
run (two processes at once), and prints each variant's median figure and advantage over native:
the most any library could win there.

  --quick         one round of the quick sizes (indicative only; writes nothing)
  --rounds N      rounds (default 3, 1 with --quick)
  --node PATH     run with this node binary (default: ${process.execPath})
  --help          this text

A full run (about 7 minutes: 438 s measured at 3 rounds, Node 20) writes benchmark/results/bounds.md
(bounds-node24.md for --node of Node 24).`;

function parseArgs(argv) {
  const opts = { quick: false, rounds: 0, node: process.execPath, qtimers: path.join(ROOT, 'index.js') };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') opts.quick = true;
    else if (arg === '--rounds' && /^[1-9]\d*$/.test(argv[i + 1] || '')) opts.rounds = Number(argv[++i]);
    else if (arg === '--node' && argv[i + 1]) opts.node = argv[++i];
    else if (arg === '--help' || arg === '-h') opts.help = true;
    else throw new UsageError(arg + ': unknown option, or a missing or bad value (see --help)');
  }
  if (!opts.rounds) opts.rounds = opts.quick ? 1 : 3;
  opts.size = opts.quick ? 'quick' : 'full';
  return opts;
}

/*
 * how runner.js's runSideBySide runs a variant: natively, or with its preloads in order (the last
 * one as its qtimers preload, the others before it)
 */
function childOptions(variant, opts) {
  const files = variant.preloads.map((p) => p === null ? opts.qtimers : path.join(BOUNDS_DIR, p));
  if (files.length === 0) return { mode: 'native', options: { node: opts.node } };
  const extraArgs = [];
  for (const file of files.slice(0, -1)) extraArgs.push('-r', file);
  return { mode: 'qtimers', options: { node: opts.node, qtimers: files[files.length - 1], extraArgs } };
}

/*
 * `base` and `other` (childOptions, with their labels) run side by side on `workload`, `base`
 * starting first when `baseFirst`; their results in that order, a failed child thrown
 */
function pairOf(name, workload, [base, baseLabel], [other, otherLabel], baseFirst, opts) {
  const ended = runSideBySide(workload, baseFirst ? [base, other] : [other, base], opts.size);
  const [baseResult, otherResult] = baseFirst ? ended : ended.slice().reverse();
  for (const [result, label] of [[baseResult, baseLabel], [otherResult, otherLabel]]) {
    if (result.error) throw new Error(name + ', ' + label + ': ' + result.error);
  }
  return [baseResult, otherResult];
}

/* one pair a round of each of a row's shares: the variant side by side with its bound, share = bound / variant in the metric's sense */
function runShares(name, metric, variants, shares, opts, round, log) {
  return shares.map((share) => {
    const of = childOptions(variants.find((v) => v.label === share.of), opts);
    const bound = childOptions(variants.find((v) => v.label === share.bound), opts);
    const [boundResult, ofResult] = pairOf(name, name, [bound, share.bound], [of, share.of], round % 2 === 0, opts);
    const ratio = advantage(metric, boundResult.metrics[metric.key], ofResult.metrics[metric.key]);
    log(`  [${round + 1}/${opts.rounds}] ${name}: ${share.label}, side by side: ${ratio.toFixed(2)}`);
    return ratio;
  });
}

function runPlan(opts, log) {
  const rows = [];
  for (const { name, metric: key, variants, shares = [] } of PLAN) {
    const metric = load(name).metrics.find((m) => m.key === key);
    const all = [{ label: 'native', preloads: [] }].concat(variants);
    const values = all.map(() => []);
    const ratios = variants.map(() => []);
    const native = childOptions(all[0], opts);
    const shareRatios = shares.map(() => []);
    for (let round = 0; round < opts.rounds; round++) {
      runShares(name, metric, variants, shares, opts, round, log).forEach((r, i) => shareRatios[i].push(r));
      for (let v = 1; v < all.length; v++) {
        // side by side with a native run, which starts first every other time
        const variant = childOptions(all[v], opts);
        const nativeFirst = (round + v) % 2 === 0;
        // a variant with a workload of its own (the coarse ones: the same work, their own environment)
        // runs it natively too
        const [nativeResult, variantResult] = pairOf(name, all[v].workload || name, [native, 'native'],
          [variant, all[v].label], nativeFirst, opts);
        values[0].push(nativeResult.metrics[key]);
        values[v].push(variantResult.metrics[key]);
        ratios[v - 1].push(advantage(metric, nativeResult.metrics[key], variantResult.metrics[key]));
        log(`  [${round + 1}/${opts.rounds}] ${name}: ${all[v].label}: ${formatFigure(variantResult.metrics[key])} ` +
          `${metric.unit}, native beside it ${formatFigure(nativeResult.metrics[key])}: ` +
          `x${ratios[v - 1][ratios[v - 1].length - 1].toFixed(2)}`);
      }
    }
    rows.push({ name, metric, all, values, ratios, shares: shares.map((share, i) => ({ label: share.label, ratios: shareRatios[i] })) });
  }
  return rows;
}

function table(rows, header) {
  const lines = [header, '', '| workload | timers | figure | median | advantage over native |', '|---|---|---|--:|--:|'];
  const spread = (r, unit) => `${median(r).toFixed(2)}${unit} (${Math.min(...r).toFixed(2)}-${Math.max(...r).toFixed(2)})`;
  for (const { name, metric, all, values, ratios, shares = [] } of rows) {
    all.forEach((variant, i) => {
      const advantageText = i === 0 ? '1.00x' : spread(ratios[i - 1], 'x');
      lines.push(`| ${i === 0 ? load(name).title : ''} | ${variant.label} | ${metric.label} (${metric.unit}) | ` +
        `${formatFigure(median(values[i]))} | ${advantageText} |`);
    });
    for (const share of shares) {
      lines.push(`|  | ${share.label}, paired directly | share of the bound | | ${spread(share.ratios, '')} |`);
    }
  }
  lines.push('', 'Each variant ran side by side with a native run, two processes at once, once a round; the native ' +
    'figure is the median of all those native runs.  Advantage: the median of the per-round ratios to the native run ' +
    'beside it (native / variant for CPU per message, variant / native for operations), range over rounds in ' +
    'parentheses.  The stand-ins ' +
    '(benchmark/apps/bounds/) do less than any working timer, so their advantage bounds what any ' +
    'timers library could win on these workloads.  A share "paired directly" ran the two side by side, once a round: ' +
    'the bound\'s figure over qtimers\' (CPU per message), 1.00 at the bound.');
  return lines.join('\n') + '\n';
}

function main(argv) {
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error('bounds.js: ' + err.message);
    process.exit(2);
  }
  if (opts.help) {
    console.log(HELP);
    return;
  }
  const env = checkEnvironment(opts);
  const started = Date.now();
  const rows = runPlan(opts, (line) => console.log(line));
  const header = `**What any timers library could win**: node ${env.version} ${env.arch}, ${env.cpu} ` +
    `(${env.cores} cores), ${opts.rounds} round${opts.rounds > 1 ? 's' : ''}${opts.quick ? ', --quick: indicative only' : ''}, ` +
    new Date().toISOString().slice(0, 10);
  const text = table(rows, header);
  console.log('\n' + text);
  if (!opts.quick) {
    const file = resultFile(opts.node, env.version);
    fs.writeFileSync(file, text);
    console.log('wrote ' + path.relative(ROOT, file));
  }
  console.log('total ' + ((Date.now() - started) / 1000).toFixed(0) + ' s');
}

module.exports = { PLAN, parseArgs, childOptions, table, resultFile };

if (require.main === module) main(process.argv.slice(2));
