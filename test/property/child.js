/*
 * child: runs generated programs in this process against one timers implementation, one after
 * the other, and prints their logs for run.js to check.
 *
 *   node test/property/child.js '{"mode":"native","first":1000,"count":300}'
 *
 * options (one JSON argument):
 *   mode          'native': Node's own timers
 *                 'standalone': qtimers from lib/standalone.js, the globals left native
 *                 'installed': qtimers installed over the globals (require('<repo>/index.js')),
 *                              the programs calling the globals
 *                 'broken': Node's timers with the fault named by option `broken` (broken.js)
 *   maxTickDepth  setImmediate.maxTickDepth for qtimers (default: leave qtimers' default)
 *   exactStart    setTimeout.exactStart for qtimers (default: leave qtimers' default)
 *   stores        use AsyncLocalStorage in the programs (default true)
 *   first, count  run the programs with seeds first .. first+count-1
 *   exit          run the single program `first` and let the process exit by itself: its log
 *                 (with the timers still armed at exit) is printed from the 'exit' event
 *
 *   out           write the output to this file (default: stdout)
 *
 * Output: one line per program, "@@P " + JSON { seed, log }, then "@@L " + JSON { seed, events }
 * for events that came in after a program was done (a timer firing twice or late), and
 * "@@END " + JSON stats.  Each program starts from a fresh (native) macrotask.  A throwing
 * callback's error is attributed to its program by the 'uncaughtException' listener.
 *
 * qnit loads every .js under test/: everything here runs only when this is the main module.
 */
'use strict';

function main() {
  const path = require('path');
  const nodeTimers = require('timers');
  const { AsyncLocalStorage } = require('async_hooks');
  const { generateProgram } = require('./generate');
  const { runProgram, ProgramError } = require('./interpret');

  const opts = JSON.parse(process.argv[2] || '{}');
  const repo = path.resolve(__dirname, '../..');

  // the interpreter's own waiting always uses Node's timers, captured before any install
  const native = {
    setTimeout: nodeTimers.setTimeout,
    clearTimeout: nodeTimers.clearTimeout,
    setImmediate: nodeTimers.setImmediate,
  };

  let api;
  if (opts.mode === 'native') {
    api = nodeTimers;
  } else if (opts.mode === 'standalone') {
    api = require(path.join(repo, 'lib/standalone'));
  } else if (opts.mode === 'installed') {
    require(path.join(repo, 'index.js'));
    api = {
      setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout,
      setInterval: globalThis.setInterval, clearInterval: globalThis.clearInterval,
      setImmediate: globalThis.setImmediate, clearImmediate: globalThis.clearImmediate,
    };
    if (api.setTimeout === native.setTimeout) throw new Error('qtimers did not install');
  } else if (opts.mode === 'broken') {
    api = require('./broken').makeBroken(opts.broken, nodeTimers);
  } else {
    throw new Error('unknown mode ' + opts.mode);
  }
  if (opts.mode === 'standalone' || opts.mode === 'installed') {
    if (opts.maxTickDepth !== undefined) api.setImmediate.maxTickDepth = opts.maxTickDepth;
    if (opts.exactStart !== undefined) api.setTimeout.exactStart = opts.exactStart;
  }
  // Node >= 23 warns about negative and NaN delays; the programs use them on purpose
  process.removeAllListeners('warning');

  const stores = opts.stores !== false;
  const als = stores ? new AsyncLocalStorage() : null;
  const genOptions = { stores };
  const env = { api, als, native, stallMs: opts.stallMs || 2000, watchdog: !opts.exit };

  let current = null;
  process.on('uncaughtException', (err) => {
    if (err instanceof ProgramError) {
      const run = err.propertyRun;
      const key = err.timerId + '/' + err.call;
      run.log.push({ e: 'uncaught', id: err.timerId, n: err.call, ok: run.thrown.has(key) });
    } else if (current !== null) {
      current.log.push({ e: 'foreign', message: String(err && err.stack || err) });
    } else {
      process.stderr.write('property child: uncaught outside any program: ' + (err && err.stack || err) + '\n');
      process.exitCode = 3;
    }
  });

  // to a file when given one: synchronous, so nothing is lost when the process exits at once
  const fs = require('fs');
  const outFd = opts.out ? fs.openSync(opts.out, 'w') : 1;
  const write = (tag, obj) => fs.writeSync(outFd, tag + ' ' + JSON.stringify(obj) + '\n');

  if (opts.exit) {
    const program = generateProgram(opts.first, genOptions);
    current = runProgram(program, env, () => {});
    process.on('exit', () => {
      const model = current.model;
      const armed = model.pendingIds().map((id) => ({ id, refed: model.state(id).refed }));
      write('@@P', { seed: program.seed, log: current.log, armedAtExit: armed });
    });
    return;
  }

  const runs = [];
  let stalls = 0;
  let seed = opts.first;
  const last = opts.first + opts.count;
  const started = Date.now();

  function next() {
    if (seed >= last || stalls >= 3) return native.setTimeout(finish, 60);
    const program = generateProgram(seed++, genOptions);
    current = runProgram(program, env, (run) => {
      if (run.stalled) stalls += 1;
      run.emitted = run.log.length;
      write('@@P', { seed: run.program.seed, log: run.log });
      runs.push(run);
      current = null;
      native.setImmediate(next);
    });
  }

  function finish() {
    // events that came in after their program was done
    for (const run of runs) {
      if (run.log.length > run.emitted) write('@@L', { seed: run.program.seed, events: run.log.slice(run.emitted) });
    }
    write('@@END', { programs: runs.length, stalls, ms: Date.now() - started, node: process.version });
    if (opts.mode === 'broken') process.exit(0);
    // every program is done, so nothing may keep the process alive any more: if this (unref'd)
    // timer ever fires, something still holds a reference
    native.setTimeout(() => {
      process.stderr.write('property child: still alive 2 s after the last program, a referenced handle leaked\n');
      process.exit(4);
    }, 2000).unref();
  }

  native.setImmediate(next);
}

if (require.main === module) main();
