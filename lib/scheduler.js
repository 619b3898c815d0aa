/*
 * scheduler: runs qtimers' callbacks from a handful of native timers.
 *
 * Owns the pending immediates (an ImmediateQueue) and timeouts (a TimeoutStore), the handles'
 * lifecycle (pending, running, destroyed) and reference counts, and the native drivers: one
 * native setImmediate drains the immediate queue, one native setTimeout (re-armed for the
 * earliest expiry, reused with refresh() when the delay repeats) drains the due timeouts.  A
 * driver is referenced exactly when a referenced handle is pending, so with only unref'd timers
 * left the process exits as Node's would; with nothing pending there are no wakeups at all.
 * Between two callbacks it drains the nextTick and microtask queues (process._tickCallback, the
 * hook native timers use), and a callback that throws leaves the drain with the exception still
 * propagating, so it reaches 'uncaughtException' (or crashes the process) exactly as a native
 * one does, while a `finally` reschedules the rest so nothing due is lost or run twice.
 * It must never call user code except through runImmediate/runTimeout, never allocate per
 * callback on the drain paths, and never use the globals (they may be qtimers itself, or gone).
 */
'use strict';

const natives = require('./natives');
const clock = require('./clock');
const ImmediateQueue = require('./immediate-queue');
const { TimeoutStore } = require('./timeout-list');
const context = require('./context');
const ids = require('./ids');
const contextState = context.state;

// Captured at load: the globals may be replaced (by us) or removed (by tests) later.
const nativeSetImmediate = natives.setImmediate;
const nativeSetTimeout = natives.setTimeout;
const nativeClearTimeout = natives.clearTimeout;
const tickCallback = natives.tickCallback;
const nextTick = natives.nextTick;
const queueMicrotask_ = natives.queueMicrotask;
const ReflectApply = Reflect.apply;

const { REFED, DESTROYED, CLEARED, REPEAT, EXTRA, CONTEXT, PRIMITIVE } = require('./flags');

const settings = {
  // setImmediate.maxTickDepth: how many immediates one event-loop turn runs.  0: exactly those
  // queued before the turn (Node's rule); -N: those, plus up to N queued while it runs; N > 0:
  // up to N in all, newly queued ones included.
  maxTickDepth: -1000,
  // setImmediate.maxTurnMs: immediates queued while a turn runs are run in the same turn only
  // while the turn is younger than this.  A recursive setImmediate then costs one native turn
  // per millisecond instead of one per callback (most of its speedup), while a chain of long
  // callbacks gets one callback per turn, as natively, so timers and I/O wait no longer than
  // they would without qtimers.  Its cost: one clock read per newly queued callback.
  maxTurnMs: 1,
  // setTimeout.exactStart: stamp every timer with the time of its call, as Node does (false:
  // share one reading per synchronous section, which arms timers early after long work)
  exactStart: true,
};

// ---------------------------------------------------------------- settling

// Two things only have to be right by the time control returns to the event loop: whether each
// native driver is referenced (a count crossed zero) and when the timeout driver fires (a timer
// earlier than the armed one was added).  Both are settled once per synchronous section or
// drain, not per call: a set/clear loop crosses zero on every iteration, as a recursive
// setImmediate does on every callback; inserting timers in descending order of delay finds a
// new earliest one every time; and each native ref(), unref() or re-arm is a call into C++.
// A drain settles when it ends; anywhere else a microtask does, which runs before the event
// loop can next look at its timers or decide whether the process stays alive.

let refedImmediates = 0;    // pending immediates with REFED
let refedTimeouts = 0;      // linked timeouts with REFED
let unsettled = false;
let settleQueued = false;
let draining = false;       // inside runImmediates or runTimeouts
// 1 while a referenced immediate's callback runs: it is still in refedImmediates (released after
// its callback), which Node would no longer count: Node uncounts an immediate before running it
let runningRefedImmediate = 0;

function needsSettling() {
  unsettled = true;
  if (draining || settleQueued) return;
  settleQueued = true;
  queueMicrotask_(settleFromMicrotask);
}

function settleFromMicrotask() {
  settleQueued = false;
  if (unsettled) settle();
}

function settle() {
  unsettled = false;
  if (wantedExpiry < armedExpiry) armTimeoutDriver(wantedExpiry);
  if (immediateDriver !== null) {
    const want = refedImmediates > 0;
    if (want !== immediateDriverRefed) {
      immediateDriverRefed = want;
      if (want) immediateDriver.ref(); else immediateDriver.unref();
    }
  }
  if (timeoutDriver !== null) {
    const want = refedTimeouts > 0;
    if (want !== timeoutDriverRefed) {
      timeoutDriverRefed = want;
      if (want) timeoutDriver.ref(); else timeoutDriver.unref();
    }
  }
}

// ---------------------------------------------------------------- immediates

const immediates = new ImmediateQueue();
let immediateDriver = null;         // the native Immediate queued to drain us, if any
let immediateDriverRefed = false;
let drainingImmediates = false;
// During a drain: how many entries at the front of the queue were there when it started
// (maxTickDepth <= 0 runs those before counting new ones).  Read by cancelImmediate.
let preQueued = 0;

// Native timers for our own use, made outside any user's async context (see context.makeDriver).
function nativeImmediate(fn) {
  return contextState.mode !== 0 ? context.makeDriver(nativeSetImmediate, fn) : nativeSetImmediate(fn);
}

function scheduleImmediateDriver() {
  immediateDriver = nativeImmediate(runImmediates);
  immediateDriverRefed = true;
  if (refedImmediates === 0) {
    immediateDriverRefed = false;
    immediateDriver.unref();
  }
}

function addImmediate(imm) {
  immediates.push(imm);
  if (imm._flags & REFED) {
    if (refedImmediates++ === 0) needsSettling();
  }
  if (immediateDriver === null && !drainingImmediates) scheduleImmediateDriver();
}

function cancelImmediate(imm) {
  const f = imm._flags;
  if (f & DESTROYED) return;
  imm._flags = (f | DESTROYED | CLEARED) & ~REFED;
  if (f & REFED) {
    if (--refedImmediates === 0) needsSettling();
  }
  finishImmediate(imm);
  // Cancelled right after it was made (the set/clear pattern): take the slot back, and those of
  // cancelled entries it was hiding (set A, set B, clear A, clear B), so a synchronous loop of
  // such pairs holds no memory; but never an entry the running drain counted as pre-queued.
  if (immediates.last() === imm && immediates.length > preQueued) {
    do immediates.pop();
    while (immediates.length > preQueued && (immediates.last() || NOT_CANCELLED)._flags & DESTROYED);
  }
}

const NOT_CANCELLED = { _flags: 0 };

function refImmediate(imm) {
  const f = imm._flags;
  if (f & (REFED | DESTROYED)) return;     // as Node: an immediate that ran or was cleared stays unref'd
  imm._flags = f | REFED;
  if (refedImmediates++ === 0) needsSettling();
}

function unrefImmediate(imm) {
  const f = imm._flags;
  if (!(f & REFED)) return;
  imm._flags = f & ~REFED;
  if (!(f & DESTROYED)) {
    if (--refedImmediates === 0) needsSettling();
  }
}

function runImmediates() {
  immediateDriver = null;
  drainingImmediates = true;
  draining = true;
  clock.drainStarted();
  // maxTickDepth N > 0: up to N callbacks, new ones included; 0: exactly those queued before
  // this turn (Node's rule); -N: those plus up to N queued while running.  `extra` is the
  // budget of callbacks beyond those queued before the turn.
  const depth = settings.maxTickDepth;
  let extra;
  if (depth > 0) {
    preQueued = 0;
    extra = depth;
  } else {
    preQueued = immediates.length;
    extra = -depth;
  }
  // ... and extra callbacks run only while the turn is younger than maxTurnMs
  const turnMs = settings.maxTurnMs;
  const turnStart = extra > 0 && turnMs !== Infinity ? clock.now() : 0;
  let ranOne = false;
  // The handle whose callback is running.  A try/finally around each call would cost more than
  // the rest of the loop, so the one around the loop cleans up after a callback that threw.
  let running = null;
  let runningRefed = false;
  // Ticks and microtasks are drained before the next callback, not after each one: after the
  // last, Node drains them itself when the driver returns.
  let ticksOwed = false;
  try {
    for (;;) {
      // When the queue is empty, the last callback's ticks and promise jobs may still queue
      // more (an `await setImmediate()` loop does): drained now, as Node would drain them
      // right after this driver returns, they get their chance at this turn's budget.
      if (preQueued === 0 && (extra === 0 || (immediates.length === 0 && !ticksOwed))) break;
      if (ticksOwed) {
        ticksOwed = false;
        tickCallback();
        continue;           // the ticks may have cleared or queued immediates: look again
      }
      let imm;
      if (preQueued > 0) {
        preQueued -= 1;
        imm = immediates.shift();
      } else {
        // the turn is old: the rest wait for the next one, after timers and I/O
        if (ranOne && turnMs !== Infinity && clock.now() - turnStart >= turnMs) break;
        imm = immediates.shift();
        if (imm._flags & DESTROYED) continue;   // cancelled entries cost no budget
        extra -= 1;
      }
      const f = imm._flags;
      if (f & DESTROYED) continue;
      imm._flags = (f | DESTROYED) & ~REFED;    // as in Node: destroyed before it runs
      // Its reference is released after its callback, not before: a callback that queues the
      // next immediate (a loop) then never takes the count through zero and back.
      running = imm;
      runningRefed = (f & REFED) !== 0;
      runningRefedImmediate = runningRefed ? 1 : 0;
      if (f & EXTRA) {
        runImmediateWithExtras(imm, f);
      } else if (contextState.mode === 0) {
        // a method call: `this` is the handle, and the callback's own .call/.apply are not used
        imm._onImmediate();
        imm._onImmediate = null;    // a handle the program keeps must not keep its callback alive
      } else {
        context.callWithoutContext(imm._onImmediate, imm, undefined);
        imm._onImmediate = null;
      }
      running = null;
      runningRefedImmediate = 0;
      ranOne = true;
      if (runningRefed && --refedImmediates === 0) needsSettling();
      clock.callbackRan();
      ticksOwed = true;
    }
  } finally {
    // normal end, or a callback (or a nextTick callback) threw: whatever is left runs next turn
    runningRefedImmediate = 0;
    if (running !== null) {
      finishImmediate(running);
      if (runningRefed && --refedImmediates === 0) needsSettling();
    }
    preQueued = 0;
    drainingImmediates = false;
    draining = false;
    if (immediates.length > 0 && immediateDriver === null) scheduleImmediateDriver();
    endDrain();
  }
}

function runImmediateWithExtras(imm, f) {
  const args = imm._argv;
  if (readyToCall(imm, imm._onImmediate, args, f)) {
    // Method calls with the arguments spelled out, as on the fast path: Reflect.apply goes
    // through V8's generic array-like call, which costs more than the rest of the callback's
    // bookkeeping.  setImmediate made the array, one to three long unless there were more.
    if (args === undefined) imm._onImmediate();
    else if (args.length === 1) imm._onImmediate(args[0]);
    else if (args.length === 2) imm._onImmediate(args[0], args[1]);
    else if (args.length === 3) imm._onImmediate(args[0], args[1], args[2]);
    else ReflectApply(imm._onImmediate, imm, args);
  }
  finishImmediate(imm);
}

function runTimeoutWithExtras(timer, f) {
  const args = timer._timerArgs;
  if (readyToCall(timer, timer._onTimeout, args, f)) {
    if (args === undefined) timer._onTimeout();
    else if (args.length === 1) timer._onTimeout(args[0]);
    else if (args.length === 2) timer._onTimeout(args[0], args[1]);
    else if (args.length === 3) timer._onTimeout(args[0], args[1], args[2]);
    else ReflectApply(timer._onTimeout, timer, args);
  }
}

/*
 * the context part of both: true when the caller is to call the callback (it carries no context
 * and none is tracked); false when it had to be called here, inside its timer's AsyncResource
 * or, for a callback scheduled before tracking began, the top-level scope
 */
function readyToCall(handle, fn, args, f) {
  if (f & CONTEXT) {
    context.callIn(handle._asyncContext, fn, handle, args);
    return false;
  }
  if (contextState.mode === 0) return true;
  context.callWithoutContext(fn, handle, args);
  return false;
}

/* release what a run, throwing or cancelled immediate no longer needs */
function finishImmediate(imm) {
  imm._onImmediate = null;
  if (imm._flags & EXTRA) {
    imm._argv = undefined;
    if (imm._flags & CONTEXT) releaseContext(imm);
  }
}

// ---------------------------------------------------------------- timeouts

const store = new TimeoutStore();
let timeoutDriver = null;         // the native Timeout that wakes us; kept for reuse
let timeoutDriverDelay = -1;      // the delay it was created with (refresh() re-arms with it)
let timeoutDriverRefed = false;
// The expiry (clock ms) the native driver is armed for, Infinity when it is not armed; and the
// earliest expiry it is needed for, which settle() re-arms it for.
let armedExpiry = Infinity;
let wantedExpiry = Infinity;
// The timeout whose callback is running, and whether its reference is counted in refedTimeouts.
// Node counts a running timeout until its callback returns, unless the callback unrefs or clears
// it: ref(), unref() and clear*() adjust the count for it at once, as for a linked one.
let runningTimeout = null;
let runningTimeoutCounted = false;
let continuation = false;         // a nextTick is queued to resume a drain a callback threw out of
let resumeNow = 0;                // the reading that drain decided what was due by

function armTimeoutDriver(expiry) {
  // from the time now, read now: the native timer counts from its own call, which is now
  let delay = expiry - clock.now();
  if (delay < 1) delay = 1;
  armedExpiry = wantedExpiry = expiry;
  if (timeoutDriver !== null) {
    if (delay === timeoutDriverDelay) {
      if (contextState.mode !== 0) context.makeDriver(refreshNative, timeoutDriver);
      else timeoutDriver.refresh();
      return;
    }
    nativeClearTimeout(timeoutDriver);
  }
  nextDriverDelay = delay;
  timeoutDriver = contextState.mode !== 0 ? context.makeDriver(newTimeoutDriver) : newTimeoutDriver();
  timeoutDriverDelay = delay;
  timeoutDriverRefed = true;
  if (refedTimeouts === 0) {
    timeoutDriverRefed = false;
    timeoutDriver.unref();
  }
}

let nextDriverDelay = 1;
function newTimeoutDriver() {
  return nativeSetTimeout(runTimeouts, nextDriverDelay);
}

function refreshNative(timer) {
  timer.refresh();
}

/* link a timeout whose _idleTimeout and _flags are set, starting now */
function addTimeout(timer) {
  addTimeoutAt(timer, settings.exactStart ? clock.now() : clock.sectionNow());
}

function addTimeoutAt(timer, start) {
  const msecs = Math.trunc(timer._idleTimeout);   // as Node: no sub-millisecond accuracy assumed
  timer._idleStart = start;
  store.append(timer, msecs);
  if (timer._flags & REFED) {
    if (refedTimeouts++ === 0) needsSettling();
  }
  wantDriverBy(start + msecs);
}

function wantDriverBy(expiry) {
  if (expiry < wantedExpiry) {
    if (armedExpiry === Infinity) {
      // Not armed: arm now, so the native timer counts from this timer's start as Node's would
      // (a section that goes on running must not push the first timer back).
      armTimeoutDriver(expiry);
    } else {
      // Armed for later: re-arm once, when the section ends, for the earliest timer by then.
      wantedExpiry = expiry;
      needsSettling();
    }
  }
}

function cancelTimeout(timer) {
  const f = timer._flags;
  if (f & CLEARED) return;
  if (timer._idlePrev !== null) {
    store.unlink(timer);
    if (f & REFED) {
      if (--refedTimeouts === 0) needsSettling();
    }
  } else if (timer === runningTimeout && runningTimeoutCounted) {
    runningTimeoutCounted = false;
    if (--refedTimeouts === 0) needsSettling();
  }
  timer._flags = f | DESTROYED | CLEARED;   // as Node, it keeps its ref flag (hasRef())
  timer._onTimeout = null;
  if (f & EXTRA) {
    timer._timerArgs = undefined;
    if (f & CONTEXT) releaseContext(timer);
  }
  if (f & PRIMITIVE) ids.forget(timer);
}

function refreshTimeout(timer) {
  const f = timer._flags;
  if (f & CLEARED) return;
  if (timer._idlePrev !== null) {
    // already pending: a new start, behind the others of its delay
    const msecs = Math.trunc(timer._idleTimeout);
    const start = settings.exactStart ? clock.now() : clock.sectionNow();
    store.restart(timer, start, msecs);
    wantDriverBy(start + msecs);
    return;
  }
  if (f & DESTROYED) {
    // fired: refresh() revives it (documented Node behaviour); it needs a context again
    timer._flags = f & ~DESTROYED;
    if (contextState.mode !== 0) {
      // the context current now, as Node gives a revived timer; a timer made before contexts
      // were tracked gets the field as its own (a rare second shape, only on this path)
      timer._asyncContext = context.capture('Timeout', timer);
      timer._flags |= CONTEXT | EXTRA;
    }
  }
  addTimeout(timer);
}

function refTimeout(timer) {
  const f = timer._flags;
  if (f & REFED) return;
  timer._flags = f | REFED;
  if (timer._idlePrev !== null) {
    if (refedTimeouts++ === 0) needsSettling();
  } else if (timer === runningTimeout && !runningTimeoutCounted && !(f & CLEARED)) {
    runningTimeoutCounted = true;
    if (refedTimeouts++ === 0) needsSettling();
  }
}

function unrefTimeout(timer) {
  const f = timer._flags;
  if (!(f & REFED)) return;
  timer._flags = f & ~REFED;
  if (timer._idlePrev !== null) {
    if (--refedTimeouts === 0) needsSettling();
  } else if (timer === runningTimeout && runningTimeoutCounted) {
    runningTimeoutCounted = false;
    if (--refedTimeouts === 0) needsSettling();
  }
}

function runTimeouts() {
  // what is due is decided against one reading, as Node does: timers that callbacks of this
  // drain arm (even with 0 ms) wait for the next one
  drainTimeouts(clock.now());
}

function drainTimeouts(now) {
  clock.drainStarted();
  armedExpiry = Infinity;       // it just fired
  wantedExpiry = Infinity;
  draining = true;
  let running = null;           // as in runImmediates: cleaned up by the finally if it threw
  let repeatStart = 0;          // the start of a running interval's callback
  let ticksOwed = false;        // as in runImmediates: drained before the next callback only
  let completed = false;
  try {
    for (;;) {
      const list = store.peek();
      if (list === undefined) break;
      const head = list._idleNext;
      if (head === list || head._idleStart !== list.start) {
        // empty, or its head left since it was keyed: re-key and look again
        store.rekeyTop();
        continue;
      }
      // due: expired, and not started in this very millisecond (a 0 ms timer made by a
      // callback of this drain would otherwise run in it, and could do so forever)
      if (list.expiry > now || head._idleStart >= now) break;
      if (ticksOwed) {
        ticksOwed = false;
        tickCallback();
        continue;           // the ticks may have cleared, refreshed or added timers: look again
      }
      store.unlink(head);
      const f = head._flags;
      if (!head._onTimeout) {
        // a program may disarm a timer by deleting its callback, as Node allows
        head._flags = f | DESTROYED;
        if (f & CONTEXT) releaseContext(head);
        if ((f & REFED) && --refedTimeouts === 0) needsSettling();
        continue;
      }
      // As with immediates, its reference is released after its callback (by afterTimeout).
      running = head;
      runningTimeout = head;
      runningTimeoutCounted = (f & REFED) !== 0;
      // as Node: an interval's next period counts from the start of its callback (also for a
      // timeout whose callback makes it an interval by setting _repeat)
      if (f & REPEAT) repeatStart = settings.exactStart ? clock.now() : clock.sectionNow();
      if (f & EXTRA) runTimeoutWithExtras(head, f);
      else if (contextState.mode === 0) head._onTimeout();
      else context.callWithoutContext(head._onTimeout, head, undefined);
      running = null;
      runningTimeout = null;
      afterTimeout(head, runningTimeoutCounted, repeatStart);
      clock.callbackRan();
      ticksOwed = true;
    }
    completed = true;
  } finally {
    if (running !== null) {
      runningTimeout = null;
      afterTimeout(running, runningTimeoutCounted, repeatStart);
    }
    draining = false;
    wantedExpiry = Infinity;
    if (completed) wantFirst();
    else if (!continuation) {
      // A callback threw.  Node reports the exception and then, at once, goes on with the
      // timers that were due, before any nextTick (those queued by an 'uncaughtException'
      // handler included) and before immediates.  The nearest place we can do that is a
      // nextTick queued now, ahead of the handler's; it decides by the same reading.
      continuation = true;
      resumeNow = now;
      // queued from the top level: not in the domain the throw left active for Node's handler
      if (contextState.mode !== 0) context.callAtRoot(nextTick, resumeTimeouts);
      else nextTick(resumeTimeouts);
    }
    endDrain();
  }
}

/* the end of either drain: settle while the clock is still ours, then hand it back */
function endDrain() {
  if (unsettled) settle();
  clock.drainEnded();
}

function resumeTimeouts() {
  continuation = false;
  drainTimeouts(resumeNow);
}

/* want the driver for the first list's exact expiry (re-keying stale tops on the way) */
function wantFirst() {
  for (;;) {
    const list = store.peek();
    if (list === undefined) return;
    const head = list._idleNext;
    if (head !== list && head._idleStart === list.start) {
      if (list.expiry < armedExpiry) {     // usually armed already, by a callback's setTimeout
        wantedExpiry = list.expiry;
        unsettled = true;
      }
      return;
    }
    store.rekeyTop();
  }
}

/*
 * a timeout's callback has returned (or thrown); `refed`: its reference is still counted;
 * `start`: when the callback started, from which an interval's next period counts
 */
function afterTimeout(timer, refed, start) {
  const f = timer._flags;
  // refresh()ed from its own callback (pending again), cleared there, or done: re-add an
  // interval first, so that its reference never leaves the count
  if (timer._idlePrev === null && !(f & CLEARED)) {
    if ((f & REPEAT) && timer._idleTimeout >= 0) {   // Node's convention: -1 means disarmed
      addTimeoutAt(timer, start);
    } else {
      timer._flags = f | DESTROYED;
      if (f & CONTEXT) releaseContext(timer);
      if (f & PRIMITIVE) ids.forget(timer);   // as Node: a fired timeout's id is let go
    }
  }
  if (refed && --refedTimeouts === 0) needsSettling();
}

// ---------------------------------------------------------------- shared

function releaseContext(handle) {
  const ctx = handle._asyncContext;
  handle._asyncContext = null;
  handle._flags &= ~CONTEXT;
  if (ctx !== null) context.release(ctx);
}

function stats() {
  return {
    immediates: immediates.length,
    refedImmediates,
    refedTimeouts,
    timeoutLists: store.heap.length,
    immediateDriver: immediateDriver !== null,
    timeoutArmed: armedExpiry !== Infinity,
  };
}

/*
 * the native handles qtimers itself holds that keep the process alive right now (what Node's
 * process.getActiveResourcesInfo() counts of ours), and the referenced handles of qtimers'
 * own that are pending
 */
function activeHandles() {
  return {
    // Node counts a native Timeout while it is referenced and not destroyed (also while its
    // callback runs), and an Immediate while it is referenced (not while it runs).  Our own
    // records of the drivers' ref state: a driver's hasRef() answers false to open-handle tools.
    nativeTimeouts: timeoutDriver !== null && timeoutDriverRefed && !timeoutDriver._destroyed ? 1 : 0,
    nativeImmediates: immediateDriver !== null && immediateDriverRefed ? 1 : 0,
    refedTimeouts,
    refedImmediates: refedImmediates - runningRefedImmediate,
  };
}

module.exports = {
  REFED, DESTROYED, CLEARED, REPEAT, EXTRA, CONTEXT, PRIMITIVE,
  settings,
  addImmediate, cancelImmediate, refImmediate, unrefImmediate,
  addTimeout, cancelTimeout, refreshTimeout, refTimeout, unrefTimeout,
  stats, activeHandles,
};
