#!/usr/bin/env node
/*
 * apps/run: `npm run bench:apps`, what qtimers does to whole programs: an HTTP service,
 * connection heartbeats, a job queue, async.js pipelines, cooperative yielding and a TTL cache
 * (benchmark/apps/workloads/), each measured natively and with qtimers preloaded.
 *
 * Owns the runs and the report.  Every measurement is a fresh child process (child.js).  In
 * each round the two builds of a workload run side by side, two processes at once (pair.js;
 * which starts first alternates by round), so that whatever the shared machine does in those
 * seconds it does to both; HTTP, whose load generator is a third process and whose figures
 * are wall-clock ones, runs one process at a time, native and qtimers alternating.  Why side
 * by side: one process at a time, a workload's figure moved 15-35% between consecutive runs
 * of the same build, in spells of tens of seconds (a round's median of five 2-second
 * processes of each build still gave async.js 0.76-1.23x), which drowns a difference of a
 * few percent; two builds measured through the same seconds share the spell, and the same
 * build side by side with itself came out level (see the README).  Each figure is the median
 * over rounds, and the qtimers advantage is the median of the per-round ratios, with their
 * range.  A workload whose size asks for pairsPerRound makes that many pairs of shorter runs
 * per round, and each pair counts as a round.  Once per workload a native run is profiled
 * (profile.js) for the share of CPU that Node's timers take in it.  Prints the table, and
 * writes it with a chart to
 * benchmark/results/apps.md and apps.svg after a full run of every workload (a --quick run
 * writes to benchmark/results/quick/, git-ignored: its figures are indicative only).  With
 * --alone every workload runs one process at a time; such a run writes no results.
 * It must never run more than two measured children at once, or two but a round's pair, let
 * one run without a watchdog, or write the results of a partial or --alone run over those of a
 * full one.
 */
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const childProcess = require('child_process');
const { ORDER, load } = require('./child');
const profile = require('./profile');
const chart = require('./chart');
const { median } = require('../statistics');

const ROOT = path.resolve(__dirname, '..', '..');
const CHILD = path.join(__dirname, 'child.js');
const PAIR = path.join(__dirname, 'pair.js');
const RESULTS_DIR = path.join(ROOT, 'benchmark', 'results');
const QUICK_DIR = path.join(RESULTS_DIR, 'quick');          // git-ignored, as `npm run bench -- --quick` uses it

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

/* whether a workload's two builds run side by side in this run (else one at a time) */
function sideBySide(name, opts) {
  return !opts.alone && load(name).sideBySide !== false;
}

/* the node binary's version, and whether qtimers loads and installs under it */
function checkEnvironment(opts) {
  const probe = childProcess.spawnSync(opts.node, ['-r', opts.qtimers, '-p',
    'process.version + " " + process.arch + " " + typeof setImmediate.maxTickDepth'], { encoding: 'utf8', timeout: 20000 });
  if (probe.status !== 0) {
    throw new UsageError('cannot run ' + opts.node + ' -r ' + opts.qtimers + ': ' + (probe.error || probe.stderr.trim()));
  }
  const [version, arch, installed] = probe.stdout.trim().split(' ');
  if (installed !== 'number') throw new UsageError('preloading ' + opts.qtimers + ' did not install qtimers');
  // the profile run turns V8's inlining off (see profileArgs); which flags exist depends on V8
  const v8Options = childProcess.spawnSync(opts.node, ['--v8-options'], { encoding: 'utf8', timeout: 20000 }).stdout || '';
  const noInlining = ['--turbo-inlining', '--maglev-inlining']
    .filter((flag) => new RegExp('^\\s+' + flag + '\\b', 'm').test(v8Options))
    .map((flag) => flag.replace(/^--/, '--no-'));
  const cpus = os.cpus();
  return { version, arch, cpu: cpus.length ? cpus[0].model.trim() : 'unknown CPU', cores: cpus.length, noInlining };
}

/* the watchdog of one child: its warm-up and window, set-up time and a wide margin */
function watchdogMs(workload, size) {
  const params = workload.sizes[size];
  return params.warmupMs + params.windowMs + (size === 'smoke' ? 20000 : 40000);
}

/* the node arguments of one measured child: options.extraArgs, the workload's own, the preload */
function childArgs(name, mode, size, options) {
  const args = (options.extraArgs || []).concat(load(name).nodeArgs || []);
  if (mode === 'qtimers') args.push('-r', options.qtimers);
  args.push(CHILD, name, size);
  return args;
}

/* the environment of a workload's children: ours, and the workload's own `env` (both modes get it) */
function childEnv(name) {
  const env = load(name).env;
  return env ? Object.assign({}, process.env, env) : process.env;
}

/*
 * runChild(name, mode, size, options) => the child's RESULT object, or { error }
 * mode: 'native' or 'qtimers'; options: { node, qtimers, extraArgs, cwd }
 */
function runChild(name, mode, size, options) {
  const workload = load(name);
  const child = childProcess.spawnSync(options.node, childArgs(name, mode, size, options), {
    cwd: options.cwd || ROOT, env: childEnv(name), encoding: 'utf8', timeout: watchdogMs(workload, size), killSignal: 'SIGKILL',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (child.error && child.error.code === 'ETIMEDOUT') return { error: 'killed by the watchdog after ' + watchdogMs(workload, size) + ' ms' };
  if (child.error) return { error: child.error.message };
  return readResult(child);
}

/* a child's RESULT object from how it ended, or { error } */
function readResult(child) {
  const line = (child.stdout || '').split('\n').filter((l) => l.startsWith('RESULT ')).pop();
  if (child.status !== 0 || !line) {
    const stderr = (child.stderr || '').trim().split('\n');
    const message = stderr.filter((l) => /^\w*Error\b/.test(l))[0] || stderr.pop() || '';
    return { error: (child.signal ? 'killed by ' + child.signal : 'exit code ' + child.status) + (message ? ': ' + message.trim() : '') };
  }
  return JSON.parse(line.slice('RESULT '.length));
}

/*
 * runPair(name, modes, size, options) => the two children's RESULT objects (or { error }), in
 * the order of `modes`, run side by side (pair.js), modes[0] started first
 */
function runPair(name, modes, size, options) {
  return runSideBySide(name, modes.map((mode) => ({ mode, options })), size);
}

/*
 * runSideBySide(name, runs, size) => the RESULT objects (or { error }) of two children run at
 * once, each run { mode, options } as runChild takes them, in order, the first started first
 */
function runSideBySide(name, runs, size) {
  const limit = watchdogMs(load(name), size);
  const jobs = runs.map(({ mode, options }) => ({ node: options.node, args: childArgs(name, mode, size, options),
    cwd: options.cwd || ROOT, timeoutMs: limit }));
  // pair.js's children inherit its environment
  const pair = childProcess.spawnSync(process.execPath, [PAIR, JSON.stringify(jobs)], {
    env: childEnv(name), encoding: 'utf8', timeout: limit + 20000, killSignal: 'SIGKILL', maxBuffer: 32 * 1024 * 1024,
  });
  let ended;
  try {
    ended = JSON.parse(pair.stdout);
  } catch (err) {
    const why = pair.error ? pair.error.message : 'exit code ' + pair.status + ' ' + (pair.stderr || '').trim().split('\n').pop();
    return runs.map(() => ({ error: 'pair.js: ' + why }));
  }
  return ended.map((child) => child.timedOut ? { error: 'killed by the watchdog after ' + limit + ' ms' } : readResult(child));
}

/*
 * The share of the native run's CPU that Node's timers take (profile.js defines it).  V8's
 * inlining is off for this one run: an inlined callback's samples are billed to the function
 * it was inlined into, which for a timer callback is Node's timers loop (processImmediate,
 * listOnTimeout), and would count as the timers' own.
 */
function profileShare(name, size, opts, env) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qtimers-apps-prof-'));
  try {
    const result = runChild(name, 'native', size, { node: opts.node, qtimers: opts.qtimers,
      extraArgs: ['--cpu-prof', '--cpu-prof-dir=' + dir, '--cpu-prof-interval', String(profile.SAMPLING_INTERVAL_US)]
        .concat(env.noInlining) });
    if (result.error) return { error: 'profile run: ' + result.error };
    const share = profile.timerShare(profile.readProfile(dir), result.windowUs);
    if (share.share === undefined) return { error: 'profile run: no samples in the window' };
    return share;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/* > 1 is better for qtimers, whichever way the figure points */
function advantage(metric, nativeValue, qtimersValue) {
  return metric.better === 'lower' ? nativeValue / qtimersValue : qtimersValue / nativeValue;
}

/* how many pairs of runs (native and qtimers) a workload makes per round at this size */
function pairsPerRound(workload, size) {
  return workload.sizes[size].pairsPerRound || 1;
}

/*
 * One pair of runs of a workload, native and qtimers, in the order of `modes` (side by side or
 * one after the other): each figure goes into the workload's values, their advantage into its
 * ratios.  Returns the line to log.
 */
function measurePair(result, modes, label, opts) {
  const outcome = {};
  const switches = {};
  const paired = sideBySide(result.name, opts) ? runPair(result.name, modes, opts.size, opts) : null;
  for (let m = 0; m < modes.length; m++) {
    const mode = modes[m];
    const child = paired ? paired[m] : runChild(result.name, mode, opts.size, opts);
    if (child.error) result.errors.push(mode + ' ' + label + ': ' + child.error);
    else {
      outcome[mode] = child.metrics;
      switches[mode] = child.contextSwitches / child.wallSeconds;
      result.values[mode].push(child.metrics);
    }
  }
  const first = result.workload.metrics[0];
  let line = '  ' + label + ' ' + result.name.padEnd(16) + first.label.padEnd(28);
  for (const mode of ['native', 'qtimers']) {
    line += ' ' + mode + ' ' + (outcome[mode] ? chart.formatValue(outcome[mode][first.key]) : '-').padEnd(8);
  }
  if (outcome.native && outcome.qtimers) {
    for (const metric of result.workload.metrics) {
      const ratio = advantage(metric, outcome.native[metric.key], outcome.qtimers[metric.key]);
      (result.ratios[metric.key] = result.ratios[metric.key] || []).push(ratio);
    }
    line += ' x' + result.ratios[first.key][result.ratios[first.key].length - 1].toFixed(2);
    // threads woken, the GC's helpers among them: what a CPU profile of the main thread misses
    line += '   context switches/s native ' + chart.formatValue(switches.native) + ' qtimers ' + chart.formatValue(switches.qtimers);
  }
  return line;
}

function runAll(opts, env, log) {
  const results = opts.workloads.map((name) => {
    const workload = load(name);
    return { name, workload, values: { native: [], qtimers: [] }, ratios: {}, errors: [], share: undefined };
  });
  for (let round = 1; round <= opts.rounds; round++) {
    const modes = round % 2 ? ['native', 'qtimers'] : ['qtimers', 'native'];
    for (const result of results) {
      const pairs = pairsPerRound(result.workload, opts.size);
      for (let pair = 0; pair < pairs; pair++) {
        // which build starts first alternates by pair too: n q, q n, n q, ...
        const order = pair % 2 ? modes.slice().reverse() : modes;
        const label = '[' + round + '/' + opts.rounds + (pairs > 1 ? ' ' + (pair + 1) + '/' + pairs : '') + ']';
        log(measurePair(result, order, label, opts));
      }
    }
  }
  for (const result of results) {
    const share = profileShare(result.name, opts.size, opts, env);
    if (share.error) result.errors.push(share.error);
    else result.share = share.share;
    log('  [profile] ' + result.name.padEnd(16) + 'Node\'s timers: ' + chart.formatShare(result.share) + ' of native CPU' +
      (share.error ? ' (' + share.error + ')' : ' (' + share.busySamples + ' samples)'));
  }
  return results.map((result) => ({
    name: result.name,
    title: result.workload.title,
    describe: result.workload.describe,
    share: result.share,
    errors: result.errors,
    rows: result.workload.metrics.map((metric) => {
      const ratios = result.ratios[metric.key] || [];
      return {
        label: metric.label, unit: metric.unit, better: metric.better,
        native: median(result.values.native.map((v) => v[metric.key])),
        qtimers: median(result.values.qtimers.map((v) => v[metric.key])),
        ratio: median(ratios),
        ratioMin: ratios.length ? Math.min(...ratios) : undefined,
        ratioMax: ratios.length ? Math.max(...ratios) : undefined,
      };
    }),
  }));
}

function formatRatio(row) {
  if (row.ratio === undefined) return 'n/a';
  let text = row.ratio.toFixed(2) + 'x';
  if (row.ratioMax > row.ratioMin) text += ' (' + row.ratioMin.toFixed(2) + '-' + row.ratioMax.toFixed(2) + ')';
  return text;
}

function describeRun(env, opts) {
  return 'node ' + env.version + ' ' + env.arch + ', ' + env.cpu + ' (' + env.cores + ' cores), ' +
    opts.rounds + ' round' + (opts.rounds > 1 ? 's' : '') + (opts.quick ? ', --quick' : '') +
    (opts.alone ? ', one process at a time' : ', side by side');
}

const FOOTNOTES = [
  'Each figure is the median over rounds; the advantage is the median of the per-round ratios qtimers / native ' +
    '(native / qtimers where lower is better, marked \\*), range over rounds in parentheses: > 1 means qtimers is better.  ' +
    'In each round the two builds run side by side, two processes at once, each on a core, so that both meet the same ' +
    'moments of a shared machine; HTTP runs one process at a time (its load generator takes the other core), native and ' +
    'qtimers alternating.',
  'Rates "per CPU-second" are units of work per second of the process\'s CPU time (user + system) in the measured window: ' +
    'what the workload does per wall second on a core of its own, and less disturbed than a wall-clock rate by a busy ' +
    'neighbour on a shared machine.  HTTP requests/s and p99 are autocannon\'s (wall clock), from a load generator that ' +
    'shares the machine; p99 is that of the response times autocannon reports for each response, in fractions of a ' +
    'millisecond.',
  'Node\'s timers (% of native CPU): of the V8 CPU profile samples of one native run (`--cpu-prof`, V8 inlining off for ' +
    'that run so that an inlined callback is not billed to the loop that calls it; a sample every ' +
    profile.SAMPLING_INTERVAL_US + ' µs, since V8\'s default of one a millisecond falls in step with work woken by a 1 ms ' +
    'timer and catches it asleep) taken inside the measured window and not ' +
    'labelled idle, the share whose running function is Node-internal or native code reached, with no application or ' +
    'library function in between, from a function of node:timers, node:timers/promises or node:internal/timers: the timer ' +
    'calls and their bookkeeping, and the loop that runs due timers and drains ticks and microtasks between their callbacks, ' +
    'not the callbacks.  Not counted: garbage collection, and what the profiler labels idle, which includes the event loop\'s ' +
    'own turn (polling) outside JavaScript.',
];

function markdownTable(rows, env, opts, seconds) {
  const lines = [
    '**Application workloads, native vs qtimers**: ' + describeRun(env, opts) + ', ' +
      new Date().toISOString().slice(0, 10) + ', ' + Math.round(seconds) + ' s',
    '',
  ];
  if (opts.quick) lines.push('`--quick`: one short round; indicative figures only.', '');
  lines.push('| workload | figure | native | qtimers | qtimers advantage | Node\'s timers, % of native CPU |',
    '|---|---|--:|--:|--:|--:|');
  for (const workload of rows) {
    workload.rows.forEach((row, i) => {
      lines.push('| ' + [i === 0 ? workload.title : '',
        row.label + ' (' + row.unit + ')' + (row.better === 'lower' ? ' \\*' : ''),
        chart.formatValue(row.native), chart.formatValue(row.qtimers), formatRatio(row),
        i === 0 ? chart.formatShare(workload.share) : ''].join(' | ') + ' |');
    });
  }
  lines.push('');
  for (const workload of rows) lines.push('- **' + workload.title + '**: ' + workload.describe + '.');
  lines.push('');
  for (const note of FOOTNOTES) lines.push(note, '');
  const pairsOf = (workload) => pairsPerRound(load(workload.name), opts.size);
  const several = rows.filter((workload) => pairsOf(workload) > 1);
  if (several.length) {
    const titles = several.map((workload) => workload.title + ' (' + pairsOf(workload) + ' pairs a round, ' +
      pairsOf(workload) * opts.rounds + ' in all)');
    lines.push('Pairs of shorter runs, each counted as a round above: ' + titles.join(', ') + '.  One process of such a ' +
      'workload is a lottery of V8\'s optimizing compiler, whichever timers it has, so a median needs many ' +
      '(the workload\'s file gives the figures).', '');
  }
  return lines.join('\n');
}

function printTable(rows, env, opts, log) {
  log('\n' + describeRun(env, opts) + '\n');
  const format = (cells) => cells[0].padEnd(24) + cells[1].padEnd(38) + cells[2].padStart(9) + cells[3].padStart(9) +
    '  ' + cells[4].padEnd(20) + cells[5].padStart(7);
  log(format(['workload', 'figure', 'native', 'qtimers', 'qtimers advantage', 'timers']));
  for (const workload of rows) {
    workload.rows.forEach((row, i) => {
      log(format([i === 0 ? workload.name : '', row.label + ' (' + row.unit + ')' + (row.better === 'lower' ? ' *' : ''),
        chart.formatValue(row.native), chart.formatValue(row.qtimers), formatRatio(row),
        i === 0 ? chart.formatShare(workload.share) : '']));
    });
  }
  log('\n* lower is better (the advantage is native / qtimers).  timers: the share of the native run\'s CPU profile ' +
    'that Node\'s timers take (the README and benchmark/results/apps.md define it).');
}

function main(argv) {
  let opts;
  let env;
  try {
    opts = parseArgs(argv);
    if (opts.help) return console.log(HELP);
    env = checkEnvironment(opts);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error('bench:apps: ' + err.message);
    process.exitCode = 2;
    return;
  }
  const log = (line) => console.log(line);
  const started = Date.now();
  log(describeRun(env, opts) + ': ' + opts.workloads.length + ' workloads x 2 modes x ' + opts.rounds +
    ' rounds, then one profiled native run each');
  const rows = runAll(opts, env, log);
  const seconds = (Date.now() - started) / 1000;
  printTable(rows, env, opts, log);

  // only a full run of every workload replaces what the README shows
  let dir = null;
  if (!opts.only && !opts.alone) dir = opts.quick ? QUICK_DIR : RESULTS_DIR;
  if (dir) {
    fs.mkdirSync(dir, { recursive: true });
    const base = 'apps';
    fs.writeFileSync(path.join(dir, base + '.md'), markdownTable(rows, env, opts, seconds));
    fs.writeFileSync(path.join(dir, base + '.svg'), chart.render(rows, {
      title: 'qtimers vs native timers in application workloads',
      subtitle: describeRun(env, opts) + (opts.quick ? ' (indicative only)' : ''),
    }));
    log('wrote ' + path.relative(ROOT, path.join(dir, base + '.md')) + ' and .svg' +
      (opts.quick ? ' (--quick: indicative figures only)' : ''));
  } else {
    log((opts.alone ? '--alone' : '--only') + ': no results written');
  }
  log('total ' + seconds.toFixed(1) + ' s');

  const failed = rows.filter((row) => row.errors.length);
  if (failed.length) {
    log('\nPROBLEMS:');
    for (const row of failed) for (const error of row.errors) log('  ' + row.name + ' ' + error);
    process.exitCode = 1;
  }
}

module.exports = { parseArgs, sideBySide, childArgs, runChild, runPair, runSideBySide, profileShare, checkEnvironment, advantage, median,
  markdownTable, UsageError, HELP };

if (require.main === module) main(process.argv.slice(2));
