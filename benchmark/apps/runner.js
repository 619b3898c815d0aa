/*
 * apps/runner: running the application workloads (workloads/) in child processes (child.js).
 *
 * Owns the children: every measurement is a fresh process under a watchdog.  In each round the
 * two builds of a workload run side by side, two processes at once (pair.js; which starts first
 * alternates by round, and by pair within a round), so that whatever the shared machine does in
 * those seconds it does to both; a workload that asks for it (HTTP, whose load generator is a
 * third process) and every workload with --alone runs one process at a time, native and qtimers
 * alternating.  Once per workload a native run is profiled (profile.js) for the share of CPU
 * that Node's timers take in it.  A child that fails, prints no RESULT line or outlives its
 * watchdog is an error of that round, never a figure.
 * It must never summarize or print a table (shared/statistics.js and report.js do), and never
 * run more than two measured children at once, or two but a round's pair.
 */
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const childProcess = require('child_process');
const { load, pairsPerRound } = require('./child');
const profile = require('./profile');
const { UsageError } = require('./options');
const { advantage } = require('../shared/statistics');

const ROOT = path.resolve(__dirname, '..', '..');
const CHILD = path.join(__dirname, 'child.js');
const PAIR = path.join(__dirname, 'pair.js');

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
  // the profile run turns V8's inlining off (see profileShare); which flags exist depends on V8
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

/*
 * One pair of runs of a workload, native and qtimers, in the order of `modes` (side by side or
 * one after the other): each figure goes into the workload's values, their advantage into its
 * ratios.  Returns { outcome: mode -> figures, switches: mode -> context switches a second }.
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
      // threads woken, the GC's helpers among them: what a CPU profile of the main thread misses
      switches[mode] = child.contextSwitches / child.wallSeconds;
      result.values[mode].push(child.metrics);
    }
  }
  if (outcome.native && outcome.qtimers) {
    for (const metric of result.workload.metrics) {
      const ratio = advantage(metric, outcome.native[metric.key], outcome.qtimers[metric.key]);
      (result.ratios[metric.key] = result.ratios[metric.key] || []).push(ratio);
    }
  }
  return { outcome, switches };
}

/*
 * every workload in both modes for opts.rounds rounds, then its profiled native run;
 * on.measured(result, label, pair) after each pair of runs (pair: measurePair's), on.profiled(result,
 * share) after each profile.  Returns per workload the figures and ratios of every round.
 */
function runAll(opts, env, on) {
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
        on.measured(result, label, measurePair(result, order, label, opts));
      }
    }
  }
  for (const result of results) {
    const share = profileShare(result.name, opts.size, opts, env);
    if (share.error) result.errors.push(share.error);
    else result.share = share.share;
    on.profiled(result, share);
  }
  return results;
}

module.exports = { checkEnvironment, sideBySide, childArgs, runChild, runPair, runSideBySide, profileShare, runAll };
