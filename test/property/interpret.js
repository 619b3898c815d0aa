/*
 * interpret: run a generated program against one timers API and record what happened.
 *
 * The log is a list of events in the order they happened, each with a monotonic time
 * (performance.now(), read the same way whichever API runs):
 *
 *   create   { id, kind, delay, t0, t1, st, owner, phase, job, store }   t0/t1: just before/after
 *                                     the call; st: when the synchronous section it was made in
 *                                     began (its callback's start, or the program's); job: made by
 *                                     a nextTick/microtask/promise job (of `owner`); is: the
 *                                     handle's _idleStart (its start in the implementation's own
 *                                     ms clock: for diagnosis, not checked)
 *   fire     { id, n, t, argsOk, thisOk, store, owner }            a callback starts (n: its call number)
 *   end      { id, n, t, threw }        a callback is about to return (or to throw)
 *   uncaught { id, n, ok }              'uncaughtException' for the error callback id/n threw
 *   foreign  { message }                an 'uncaughtException' nobody threw on purpose
 *   clear    { target, how, found, t }             found: the target existed at the time
 *   refresh  { target, found, t0, t1, st, owner, store, is }
 *   ref, unref { target, found }
 *   hasRef   { target, found, value }
 *   queue    { id, op, owner, call, phase }  a nextTick/microtask/promise job queued ...
 *   run      { id, owner }             ... and run
 *   jobend   { id }                    ... and done
 *   mark     { id, owner, phase }      a native setImmediate queued (a marker for the loop turn) ...
 *   markrun  { id }                    ... and run
 *   done     { t }                     the program has nothing left to wait for
 *   stall    { t, pending }            ... or it waited too long for what it had left
 *
 * `owner` is the callback (or 'main') in whose synchronous section, including the nextTicks and
 * microtasks it queued, the event happened; `phase` is the kind of that callback.  The program
 * is done when every timer it made has fired or been cleared (as far as the program can tell:
 * see model.js) and every job it queued has run; events that arrive after that (a timer firing
 * twice, or after being cleared) still go into the program's log, which the caller hands on only
 * once everything has been given time to settle.
 *
 * Loaded by qnit with the whole test/ tree: exports nothing enumerable, does nothing on require.
 */
'use strict';

const { performance } = require('perf_hooks');
const { Model } = require('./model');

const now = performance.now.bind(performance);

function busy(ms) {
  const until = now() + ms;
  while (now() < until);
}

// the error a throwing callback throws: the child's 'uncaughtException' handler finds its owner
class ProgramError extends Error {
  constructor(run, id, n) {
    super('thrown on purpose by ' + id + ' call ' + n + ' (program ' + run.program.seed + ')');
    this.propertyRun = run;
    this.timerId = id;
    this.call = n;
  }
}

/*
 * env: {
 *   api: { setTimeout, setInterval, setImmediate, clearTimeout, clearInterval, clearImmediate },
 *   als: an AsyncLocalStorage, or null,
 *   native: { setTimeout, clearTimeout, setImmediate } for the interpreter's own waiting,
 *   stallMs: how long to wait without any event before giving up on a program,
 *   watchdog: false to not wait at all (the process-exit runs)
 * }
 * Returns the run; done(run) is called when it is done (or stalled).  run.log is the log.
 */
function runProgram(program, env, done) {
  const api = env.api;
  const als = env.als;
  const native = env.native;
  const log = [];
  const model = new Model();
  const records = new Map();      // id -> { handle, args, calls, spec }
  let outstanding = 0;            // queued jobs not yet run
  let current = { owner: 'main', phase: 'main', call: 1, start: now() };
  let finished = false;
  let watchdog = null;
  let storeCount = 0;

  const run = { program, log, model, finished: false, stalled: false, thrown: new Set() };

  function event(e) {
    log.push(e);
    if (watchdog !== null) watchdog.refresh();
  }

  function storeLabel() {
    if (als === null) return null;
    const s = als.getStore();
    return s === undefined ? null : s.label;
  }

  function checkDone() {
    if (finished || outstanding > 0 || model.pendingCount() > 0) return;
    finished = true;
    native.setImmediate(finish);
  }

  function finish() {
    if (run.finished) return;
    run.finished = true;
    if (watchdog !== null) native.clearTimeout(watchdog);
    event({ e: 'done', t: now() });
    done(run);
  }

  function stall() {
    if (run.finished) return;
    run.stalled = true;
    run.finished = true;
    finished = true;
    log.push({ e: 'stall', t: now(), pending: model.pendingIds() });
    done(run);
  }

  // ---------------------------------------------------------------- actions

  function perform(actions) {
    for (let i = 0; i < actions.length; i++) {
      const a = actions[i];
      switch (a.op) {
        case 'set': schedule(a); break;
        case 'chain': chainLink(a, 0); break;
        case 'clear': clear(a); break;
        case 'refresh': refresh(a); break;
        case 'ref': case 'unref': {
          const rec = records.get(a.target);
          if (rec) rec.handle[a.op]();
          event({ e: a.op, target: a.target, found: !!rec });
          if (rec) model.apply(log[log.length - 1]);
          break;
        }
        case 'hasRef': {
          const rec = records.get(a.target);
          event({ e: 'hasRef', target: a.target, found: !!rec, value: rec ? rec.handle.hasRef() : null });
          break;
        }
        case 'tick': case 'micro': case 'promise': queueJob(a); break;
        case 'mark': mark(a.id); break;
        case 'busy': busy(a.ms); break;
        default: throw new Error('unknown op ' + a.op);
      }
    }
  }

  function schedule(a) {
    const args = a.args.map((v) => (v !== null && typeof v === 'object' ? Object.assign({}, v) : v));
    const rec = { id: a.id, kind: a.kind, spec: a, args, handle: null, calls: 0 };
    const callback = function () { return callbackBody(rec, this, arguments); };
    const call = () => {
      const store = storeLabel();
      const t0 = now();
      let handle;
      if (a.kind === 'immediate') handle = api.setImmediate(callback, ...args);
      else if (a.kind === 'timeout') handle = api.setTimeout(callback, a.delay, ...args);
      else handle = api.setInterval(callback, a.delay, ...args);
      const t1 = now();
      rec.handle = handle;
      records.set(a.id, rec);
      event({ e: 'create', id: a.id, kind: a.kind, delay: a.delay, t0, t1, st: current.start, owner: current.owner, phase: current.phase, job: !!current.job, store, is: handle._idleStart });
      model.apply(log[log.length - 1]);
      if (a.unref) {
        handle.unref();
        event({ e: 'unref', target: a.id, found: true });
        model.apply(log[log.length - 1]);
      }
    };
    if (a.store === 'new') als.run({ label: 's' + ++storeCount }, call);
    else if (a.store === 'exit') als.exit(call);
    else call();
  }

  function callbackBody(rec, self, argv) {
    const n = ++rec.calls;
    const a = rec.spec;
    let argsOk = argv.length === rec.args.length;
    for (let i = 0; argsOk && i < argv.length; i++) argsOk = argv[i] === rec.args[i];
    const outer = current;
    const t = now();
    current = { owner: rec.id, phase: rec.kind === 'immediate' ? 'immediate' : 'timeout', call: n, start: t };
    event({ e: 'fire', id: rec.id, n, t, argsOk, thisOk: self === rec.handle, store: storeLabel(), owner: outer.owner });
    model.apply(log[log.length - 1]);
    try {
      if (rec.kind === 'interval' && n === a.times) {
        api.clearInterval(rec.handle);
        event({ e: 'clear', target: rec.id, how: 'self', found: true, t: now() });
        model.apply(log[log.length - 1]);
      }
      if (n === 1) perform(a.body);
      if (a.throws) {
        event({ e: 'end', id: rec.id, n, t: now(), threw: true });
        model.apply(log[log.length - 1]);
        run.thrown.add(rec.id + '/' + n);
        throw new ProgramError(run, rec.id, n);
      }
      event({ e: 'end', id: rec.id, n, t: now(), threw: false });
      model.apply(log[log.length - 1]);
    } finally {
      current = outer;
      checkDone();
    }
  }

  function chainLink(a, i) {
    const id = a.id + '.' + i;
    const rec = { id, kind: 'immediate', spec: { body: [], throws: false }, args: [], handle: null, calls: 0 };
    const callback = function () {
      const outer = current;
      const t = now();
      current = { owner: id, phase: 'immediate', call: rec.calls + 1, start: t };
      event({ e: 'fire', id, n: ++rec.calls, t, argsOk: arguments.length === 0, thisOk: this === rec.handle, store: storeLabel(), owner: outer.owner });
      model.apply(log[log.length - 1]);
      try {
        if (a.busy > 0) busy(a.busy);
        if (rec.calls === 1 && i === a.markAt) mark(a.id + '.m');
        if (rec.calls === 1 && i + 1 < a.n) chainLink(a, i + 1);
        event({ e: 'end', id, n: rec.calls, t: now(), threw: false });
        model.apply(log[log.length - 1]);
      } finally {
        current = outer;
        checkDone();
      }
    };
    const store = storeLabel();
    const t0 = now();
    rec.handle = api.setImmediate(callback);
    const t1 = now();
    records.set(id, rec);
    event({ e: 'create', id, kind: 'immediate', t0, t1, st: current.start, owner: current.owner, phase: current.phase, job: !!current.job, store });
    model.apply(log[log.length - 1]);
  }

  function clear(a) {
    const rec = records.get(a.target);
    if (rec) {
      const h = rec.handle;
      if (a.how === 'id') api.clearTimeout(+h);
      else if (rec.kind === 'immediate') api.clearImmediate(h);
      else if ((rec.kind === 'timeout') === (a.how === 'own')) api.clearTimeout(h);
      else api.clearInterval(h);
    }
    event({ e: 'clear', target: a.target, how: a.how, found: !!rec, t: now() });
    if (rec) model.apply(log[log.length - 1]);
  }

  function refresh(a) {
    const rec = records.get(a.target);
    const t0 = now();
    if (rec) rec.handle.refresh();
    const t1 = now();
    event({ e: 'refresh', target: a.target, found: !!rec, t0, t1, st: current.start, owner: current.owner, store: storeLabel(), is: rec ? rec.handle._idleStart : undefined });
    if (rec) model.apply(log[log.length - 1]);
  }

  function queueJob(a) {
    const ctx = current;
    outstanding += 1;
    const job = () => {
      const outer = current;
      current = Object.assign({}, ctx, { job: true });
      outstanding -= 1;
      event({ e: 'run', id: a.id, owner: ctx.owner });
      try {
        perform(a.body);
      } finally {
        current = outer;
        event({ e: 'jobend', id: a.id });
        checkDone();
      }
    };
    event({ e: 'queue', id: a.id, op: a.op, owner: ctx.owner, call: ctx.call, phase: ctx.phase });
    if (a.op === 'tick') process.nextTick(job);
    else if (a.op === 'micro') queueMicrotask(job);
    else Promise.resolve().then(job);
  }

  // a native immediate, queued now: it runs in the next event loop turn's check phase
  function mark(id) {
    outstanding += 1;
    event({ e: 'mark', id, owner: current.owner, phase: current.phase });
    native.setImmediate(() => {
      outstanding -= 1;
      event({ e: 'markrun', id });
      checkDone();
    });
  }

  // ---------------------------------------------------------------- main

  if (env.watchdog !== false) watchdog = native.setTimeout(stall, env.stallMs || 2000);
  try {
    perform(program.actions);
  } finally {
    event({ e: 'end', id: 'main', n: 1, t: now(), threw: false });
    current = { owner: null, phase: null };
  }
  checkDone();
  return run;
}

Object.defineProperties(module.exports, {
  runProgram: { value: runProgram },
  ProgramError: { value: ProgramError },
});
