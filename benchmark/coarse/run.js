#!/usr/bin/env node
/*
 * coarse/run: `npm run bench:coarse`, what qtimers' opt-in coarse mode (issue 32) buys on mass
 * timeouts and what it costs in lateness: native vs exact qtimers vs coarse qtimers
 * (QTIMERS_COARSE=1, the default threshold of 1000 ms; every scenario's timers are at or above
 * it, its drivers below it), and for the call-rate rows a bound (free-timers.js: timers that
 * cost nothing but their handle), in fresh processes (child.js), one at a time, the builds'
 * order reversed every other round.
 *
 * Owns the builds, the rounds and the report: each scenario's figures (scenarios.js) are
 * medians over rounds, each ratio to native the median of the per-round ratios with its range,
 * and each target of the issue is marked met or missed.  A full run writes the table to
 * benchmark/results/coarse.md; --quick and --smoke runs write nothing.  When the qtimers under
 * test has no coarse mode (no setTimeout.coarse), it says so, measures native and exact only,
 * and writes nothing.
 * It must never run two measured children at once, nor present an exact run as a coarse one:
 * a coarse child that reports coarse mode off is an error.
 */
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const childProcess = require('child_process');
const { SCENARIOS } = require('./scenarios');
const { median } = require('../shared/statistics');
const { coarseStats } = require('./apps-variant');
const { formatValue } = require('../shared/chart');

const ROOT = path.resolve(__dirname, '..', '..');
const CHILD = path.join(__dirname, 'child.js');
const RESULT_FILE = path.join(ROOT, 'benchmark', 'results', 'coarse.md');
const FREE = path.join(__dirname, 'free-timers.js');
const BUILDS = ['native', 'exact', 'coarse', 'bound'];
// the scenarios the bound (free-timers.js: timers that cost nothing and never fire) is measured in
const BOUND_SCENARIOS = ['refresh', 'setclear'];

/*
 * The rows of the table: [scenario, label, unit, figure(result) => number, better, target].
 * A target is [the build compared, the ratio to native it must reach]: for 'higher' figures
 * build / native, for 'lower' ones native / build.
 */
const ROWS = [
  ['refresh', 'refresh() of random ones among 100k 30 s timeouts', 'calls/cpu-s', (f) => f.perCpuSecond, 'higher', 4],
  ['setclear', 'clearTimeout + setTimeout, 30 s timeouts, 100k pending', 'pairs/cpu-s', (f) => f.perCpuSecond, 'higher', 4],
  ['wakeups', '100k timeouts 10-60 s, refreshed at random (20k/s): wakeups', 'turns/s', (f) => turns(f.busy), 'lower', 8],
  ['wakeups', '  the same, idle (no refreshes; timers expire as they come due): wakeups', 'turns/s', (f) => turns(f.idle), 'lower', 8],
  ['wakeups', '  the same, idle: CPU', 'ms/s', (f) => 1000 * f.idle.cpuPerSecond, 'lower', null],
  ['wakeups', '  the same, refreshed at random: CPU', 'ms/s', (f) => 1000 * f.busy.cpuPerSecond, 'lower', null],
];

/*
 * a phase's wakeups beyond the driver's: libuv's loop turns where Node exposes them, else
 * voluntary context switches (each of the driver's ticks is one of those too)
 */
function turns(phase) {
  if (phase.turnsPerSecond !== null) return phase.turnsPerSecond;
  return Math.max(0, phase.switchesPerSecond - phase.driverTurnsPerSecond);
}

const HELP = `usage: npm run bench:coarse -- [options]     (or: node benchmark/coarse/run.js [options])

Measures mass timeouts natively, with qtimers (exact) and with qtimers' coarse mode
(QTIMERS_COARSE=1), each in fresh processes, one at a time: refresh() and set+clear of 30 s
timers among 100k, the event loop's wakeups and CPU per second with 100k pending timeouts of
10-60 s (refreshed at random, then idle), and how late coarse timers fire under load (p50, p99,
max as a fraction of the delay, against the bound of 1/8).

  --quick         one round of shorter runs (about a minute; indicative only; writes nothing)
  --smoke         one round of tiny runs (for the tests; figures mean nothing; writes nothing)
  --rounds N      rounds (default 3)
  --only NAMES    only these scenarios, comma-separated (${Object.keys(SCENARIOS).join(', ')}); writes nothing
  --node PATH     run with this node binary (default: ${process.execPath})
  --qtimers PATH  preload this qtimers entry point instead of this repository's index.js
  --help          this text

A full run (about 5 minutes) writes benchmark/results/coarse.md.`;

class UsageError extends Error {}

function parseArgs(argv) {
  const opts = { size: 'full', rounds: 0, only: null, node: process.execPath, qtimers: path.join(ROOT, 'index.js') };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') opts.size = 'quick';
    else if (arg === '--smoke') opts.size = 'smoke';
    else if (arg === '--rounds' && /^[1-9]\d*$/.test(argv[i + 1] || '')) opts.rounds = Number(argv[++i]);
    else if (arg === '--only' && argv[i + 1]) {
      opts.only = argv[++i].split(',').map((s) => s.trim()).filter(Boolean);
      const unknown = opts.only.filter((name) => !SCENARIOS[name]);
      if (unknown.length || !opts.only.length) throw new UsageError('--only: unknown scenario ' + (unknown.join(', ') || '(none)'));
    } else if (arg === '--node' && argv[i + 1]) opts.node = argv[++i];
    else if (arg === '--qtimers' && argv[i + 1]) opts.qtimers = path.resolve(argv[++i]);
    else if (arg === '--help' || arg === '-h') opts.help = true;
    else throw new UsageError(arg + ': unknown option, or a missing or bad value (see --help)');
  }
  if (!opts.rounds) opts.rounds = opts.size === 'full' ? 3 : 1;
  opts.scenarios = Object.keys(SCENARIOS).filter((name) => !opts.only || opts.only.includes(name));
  return opts;
}

/* the node arguments and environment of one build's child */
function buildCommand(build, scenario, opts) {
  const env = Object.assign({}, process.env);
  delete env.QTIMERS_COARSE;
  delete env.QTIMERS_COARSE_FROM;
  if (build === 'coarse') env.QTIMERS_COARSE = '1';
  // --expose-gc: the wakeups windows start after a full collection (scenarios.js), in every build
  const args = ['--expose-gc'].concat(build === 'native' ? [] : ['-r', build === 'bound' ? FREE : opts.qtimers]);
  return { args: args.concat(CHILD, scenario, opts.size), env };
}

/* the watchdog of one child: its scenario's phases and a wide margin for setting up */
function watchdogMs(scenario, size) {
  const s = SCENARIOS[scenario].sizes[size];
  return (s.warmupMs || 0) + (s.windowMs || 0) + (s.busyMs || 0) + (s.idleMs || 0) + 60000;
}

/* runChild(build, scenario, opts) => the child's RESULT object, or { error } */
function runChild(build, scenario, opts) {
  const { args, env } = buildCommand(build, scenario, opts);
  const limit = watchdogMs(scenario, opts.size);
  const child = childProcess.spawnSync(opts.node, args, { cwd: ROOT, env, encoding: 'utf8', timeout: limit,
    killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 });
  if (child.error) return { error: child.error.code === 'ETIMEDOUT' ? 'killed by the watchdog after ' + limit + ' ms' : child.error.message };
  const line = (child.stdout || '').split('\n').filter((l) => l.startsWith('RESULT ')).pop();
  if (child.status !== 0 || !line) {
    return { error: 'exit code ' + child.status + ': ' + (child.stderr || '').trim().split('\n').slice(-3).join(' / ') };
  }
  const result = JSON.parse(line.slice('RESULT '.length));
  if ((build === 'exact' || build === 'coarse') && result.timers !== 'qtimers') return { error: 'qtimers was not installed' };
  if (build === 'coarse' && result.coarse && result.coarse.on !== true) {
    return { error: 'QTIMERS_COARSE=1 did not turn coarse mode on (setTimeout.coarse is ' + result.coarse.on + ')' };
  }
  if (build === 'exact' && result.coarse && result.coarse.on !== false) return { error: 'coarse mode was on without QTIMERS_COARSE' };
  return result;
}

/*
 * measure(opts, log) => { results: scenario -> build -> [RESULT figures per round], coarse:
 * whether this qtimers has coarse mode, stats: the last coarse child's coarse stats, errors }
 */
function measure(opts, log) {
  const results = {};
  const errors = [];
  let hasCoarse = true;
  let stats = null;
  for (const scenario of opts.scenarios) results[scenario] = { native: [], exact: [], coarse: [], bound: [] };
  for (let round = 1; round <= opts.rounds; round++) {
    const order = round % 2 ? BUILDS : BUILDS.slice().reverse();
    for (const scenario of opts.scenarios) {
      for (const build of order) {
        if ((build === 'coarse' && !hasCoarse) || (build === 'bound' && !BOUND_SCENARIOS.includes(scenario))) continue;
        const result = runChild(build, scenario, opts);
        if (result.error) {
          errors.push(`${scenario} ${build} round ${round}: ${result.error}`);
          log(`  [${round}/${opts.rounds}] ${scenario} ${build}: ${result.error}`);
          continue;
        }
        if ((build === 'exact' || build === 'coarse') && result.coarse === null && hasCoarse) {
          hasCoarse = false;
          log('  this qtimers has no coarse mode (no setTimeout.coarse): native and exact only, no results written');
          if (build === 'coarse') continue;
        }
        if (build === 'coarse') stats = coarseStats(result.stats);
        results[scenario][build].push(result.figures);
        log(`  [${round}/${opts.rounds}] ${scenario} ${build}: ${summarize(scenario, result.figures)}`);
      }
    }
  }
  return { results, coarse: hasCoarse, stats, errors };
}

/* one child's figures on a line */
function summarize(scenario, f) {
  if (scenario === 'wakeups') {
    return `busy ${fmt(turns(f.busy))} turns/s (+${fmt(f.busy.driverTurnsPerSecond)} the driver's), ` +
      `CPU ${fmt(1000 * f.busy.cpuPerSecond)} ms/s, fired ${fmt(f.busy.firedPerSecond)}/s; ` +
      `idle ${fmt(turns(f.idle))} turns/s, CPU ${fmt(1000 * f.idle.cpuPerSecond)} ms/s, fired ${fmt(f.idle.firedPerSecond)}/s; ` +
      `switches/s ${fmt(f.busy.switchesPerSecond)} busy, ${fmt(f.idle.switchesPerSecond)} idle`;
  }
  if (scenario === 'lateness') {
    return `${f.fired} fired, late p50 ${pct(f.p50)} p99 ${pct(f.p99)} max ${pct(f.max)} of the delay; ` +
      `${f.early} more than 1 ms early (worst ${fmt(f.worstEarlyMs)} ms)`;
  }
  return `${fmt(f.perCpuSecond)}/cpu-s (${fmt(f.perSecond)}/s)`;
}

/* a figure in the tables' format ('-' for none) */
function fmt(n) {
  return n === null || n === undefined ? '-' : formatValue(n);
}

function pct(fraction) {
  return fraction === null ? '-' : (100 * fraction).toFixed(2) + '%';
}

/* a build's per-round ratios to native: > 1 is better for the build (rounds paired by index) */
function ratios(list, nativeList, figure, better) {
  const out = [];
  for (let i = 0; i < Math.min(list.length, nativeList.length); i++) {
    const b = figure(list[i]);
    const n = figure(nativeList[i]);
    // nothing to compare where neither did anything (no wakeups in a phase)
    if (b === 0 && n === 0) continue;
    out.push(better === 'higher' ? b / n : n / b);
  }
  return out;
}

function ratioText(r) {
  if (!r.length) return '-';
  const text = (x) => (x === Infinity ? '∞' : x.toFixed(2)) + 'x';
  const lo = Math.min(...r);
  const hi = Math.max(...r);
  return text(median(r)) + (hi > lo ? ' (' + text(lo).slice(0, -1) + '-' + text(hi).slice(0, -1) + ')' : '');
}

/* the table's rows: figures' medians, ratios to native, and each target's verdict */
function tableRows(measured) {
  const rows = [];
  for (const [scenario, label, unit, figure, better, target] of ROWS) {
    const r = measured.results[scenario];
    if (!r) continue;
    const runs = (build) => r[build] || [];
    const value = (build) => (runs(build).length ? median(runs(build).map(figure)) : undefined);
    const exact = ratios(runs('exact'), runs('native'), figure, better);
    const coarse = ratios(runs('coarse'), runs('native'), figure, better);
    const bound = ratios(runs('bound'), runs('native'), figure, better);
    const verdict = target === null || !coarse.length ? '' : (median(coarse) >= target ? 'met' : 'MISSED') +
      ' (' + (better === 'higher' ? '>= ' + target + 'x' : 'coarse <= 1/' + target + ' of native') + ')';
    rows.push({ label, unit, native: value('native'), exact: value('exact'), coarse: value('coarse'), bound: value('bound'),
      exactRatio: ratioText(exact), coarseRatio: ratioText(coarse), boundRatio: ratioText(bound), verdict });
  }
  return rows;
}

/* the lateness rows: per build, p50 and p99 (medians over rounds), max and early (over all rounds) */
function latenessRows(measured) {
  const r = measured.results.lateness;
  if (!r) return [];
  const nativeMax = r.native.length ? Math.max(...r.native.map((f) => f.max)) : 0;
  return BUILDS.filter((build) => r[build] && r[build].length).map((build) => {
    const list = r[build];
    const max = Math.max(...list.map((f) => f.max));
    const early = list.reduce((n, f) => n + f.early, 0);
    const worstEarlyMs = Math.max(...list.map((f) => f.worstEarlyMs));
    return { build, fired: median(list.map((f) => f.fired)), p50: median(list.map((f) => f.p50)),
      p99: median(list.map((f) => f.p99)), max, early, worstEarlyMs,
      // the bound is on lateness beyond native's: the load makes native late too
      verdict: build === 'coarse' ? (max - nativeMax <= 0.125 ? 'within' : 'BEYOND') + ' 1/8 beyond native\'s max' : '' };
  });
}

function markdown(measured, header) {
  const lines = [header, '', '| figure | unit | native | exact qtimers | coarse qtimers | exact vs native | coarse vs native | target | ' +
    'bound: timers that cost nothing, vs native |', '|---|---|--:|--:|--:|--:|--:|---|--:|'];
  for (const row of tableRows(measured)) {
    lines.push(`| ${row.label.trim()} | ${row.unit} | ${fmt(row.native)} | ${fmt(row.exact)} | ${fmt(row.coarse)} | ` +
      `${row.exactRatio} | ${row.coarseRatio} | ${row.verdict} | ${row.boundRatio} |`);
  }
  const late = latenessRows(measured);
  if (late.length) {
    const size = SCENARIOS.lateness.sizes[measured.size || 'full'];
    lines.push('', `**Lateness under load** (${size.timers / 1000}k timeouts of random ` +
      `${size.minDelayMs / 1000}-${size.maxDelayMs / 1000} s, refreshed at random and re-armed when they fire, the loop busy ` +
      `${size.loadMs} ms in every ${size.loadEveryMs}): how late each callback started after its delay, as a fraction of the delay`, '',
    '| build | fired (median) | p50 | p99 | max | started > 1 ms early | worst early | bound |', '|---|--:|--:|--:|--:|--:|--:|---|');
    for (const row of late) {
      lines.push(`| ${row.build} | ${fmt(row.fired)} | ${pct(row.p50)} | ${pct(row.p99)} | ${pct(row.max)} | ${row.early} | ` +
        `${fmt(row.worstEarlyMs)} ms | ${row.verdict} |`);
    }
  }
  if (measured.stats && Object.keys(measured.stats).length) {
    lines.push('', 'qtimers.stats() of the last coarse child (its coarse entries): `' + JSON.stringify(measured.stats) + '`');
  }
  lines.push('', NOTES);
  return lines.join('\n') + '\n';
}

const NOTES = 'Each build ran in fresh processes, one at a time, in the order native, exact, coarse, bound and reversed ' +
  'every other round; figures are medians over rounds, ratios the median of the per-round ratios to native (range in ' +
  'parentheses; > 1 is better than native: build / native for calls per CPU-second, native / build for wakeups and ' +
  'CPU).  Coarse: QTIMERS_COARSE=1 with the default threshold (1000 ms); every scenario\'s timers are at or above it ' +
  'and its drivers (setImmediate, a 50 ms or 20 ms interval) below it, so they stay exact.  Bound (refresh and ' +
  'set+clear only): timers that cost nothing but a handle as large as a Node Timeout (benchmark/coarse/free-timers.js; ' +
  'refresh() writes one field, nothing fires): no library that returns a handle per setTimeout can beat it, so a target ' +
  'above its ratio is out of reach.  refresh and set+clear: ' +
  'batches of 1000 calls with a setImmediate between, calls per CPU-second of the process.  Wakeups: turns of the ' +
  'event loop per second (libuv\'s own count, performance.nodeTiming.uvMetricsInfo.loopCount; voluntary context ' +
  'switches where Node has no such count, Node 18), less the refresh driver\'s own ticks (each a turn in every build); ' +
  'the timers\' callbacks do nothing; each window starts right after a full collection (--expose-gc, every build), ' +
  'so a major collection\'s incremental marking, which turns the loop once per step, does not land in it by chance.  ' +
  'Lateness: measured by the benchmark from a clock read just before the call that armed or refreshed each timer, lateness and "early" alike (lateness never understated, earliness never ' +
  'overstated); a build that stamps a timer with its turn\'s start, as Node does, shows as early by the time its turn ' +
  'had run before the call.';

/* the options, or null after printing the usage error (exit code 2) */
function optionsOrNull(argv) {
  try {
    return parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error('bench:coarse: ' + err.message);
    process.exitCode = 2;
    return null;
  }
}

function main(argv) {
  const opts = optionsOrNull(argv);
  if (!opts) return;
  if (opts.help) return console.log(HELP);
  const version = childProcess.spawnSync(opts.node, ['-p', 'process.version'], { encoding: 'utf8' }).stdout.trim();
  const load0 = os.loadavg();
  const started = Date.now();
  const log = (line) => console.log(line);
  log(`node ${version}, ${opts.size} size, ${opts.rounds} round${opts.rounds > 1 ? 's' : ''}, scenarios ${opts.scenarios.join(', ')}`);
  const measured = measure(opts, log);
  measured.size = opts.size;
  const load1 = os.loadavg();
  const cpus = os.cpus();
  const header = `**Coarse timers (issue 32)**: node ${version} ${process.arch}, ${cpus.length ? cpus[0].model.trim() : 'CPU'} ` +
    `(${cpus.length} cores), ${opts.rounds} round${opts.rounds > 1 ? 's' : ''}${opts.size === 'full' ? '' : ', --' + opts.size + ': indicative only'}, ` +
    `load average ${load0[0].toFixed(2)} at the start, ${load1[0].toFixed(2)} at the end, ` +
    `${new Date().toISOString().slice(0, 10)}, ${Math.round((Date.now() - started) / 1000)} s`;
  const text = markdown(measured, header);
  log('\n' + text);
  if (!measured.coarse) log('no coarse mode in this qtimers: nothing written');
  else if (opts.size === 'full' && !opts.only && !measured.errors.length) {
    fs.writeFileSync(RESULT_FILE, text);
    log('wrote ' + path.relative(ROOT, RESULT_FILE));
  }
  if (measured.errors.length) {
    log('PROBLEMS:\n  ' + measured.errors.join('\n  '));
    process.exitCode = 1;
  }
}

module.exports = { parseArgs, buildCommand, runChild, measure, markdown, tableRows, latenessRows, coarseStats, ROWS, RESULT_FILE };

if (require.main === module) main(process.argv.slice(2));
