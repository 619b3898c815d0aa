/*
 * timeouts: qtimers' pending setTimeout and setInterval timers, run from one native timer.
 *
 * Owns the pending timeouts (a TimeoutStore), their lifecycle (pending, running, destroyed) and
 * reference count, the native driver that drains them, refresh(), and the knob that decides
 * what a timer is stamped with (setTimeout.exactStart).  One native setInterval (the driver) is
 * armed for the earliest expiry and reused with refresh() when its delay repeats; it is armed
 * at the call that wants it earlier, as Node arms its own (so it counts from that timer's start,
 * and a timer due when the section ends runs in the next timers phase); while its own callback
 * runs, its period is set for the next wakeup instead ("the driver" below).  It is referenced
 * exactly when a referenced timeout is pending (settled at the end of the section, section.js),
 * so with only unref'd timers left the process exits as Node's would; with nothing pending there
 * are no wakeups at all.  A drain runs what is due by
 * one clock reading, in expiry order, draining the nextTick and microtask queues between two
 * callbacks; a callback that throws leaves the drain with the exception still propagating (to
 * 'uncaughtException', or the process's end, as a native one), and the rest runs by the same
 * reading right after the handler, as Node's: Node's own retry runs the driver again
 * (rearmFired), or a nextTick queued before the handler's resumes it (resumeTimeouts).  refresh() of a timer in a ring is stamped at the
 * call and moved later, with the other moves of its batch, before anything can see the
 * difference ("refresh() in batches" below).
 * Also owns what is counted of them for stats.js: callbacks run and thrown, driver wakeups, and
 * how late each callback started, by a reading at its start (the drain's own reading for its
 * first callback, an interval's own start, or, once stats() was asked, clock.measureNow()),
 * filed into lateness.js's histogram: a few integer updates per callback, and from the first
 * stats() a clock read per timeout after a drain's first.
 * It must never call user code except in drainTimeouts, never allocate per callback there,
 * never read a timer's fields in refresh() before the clock, never let anything look at the
 * store with moves still noted, and never use the globals (they may be qtimers itself, or gone).
 */
'use strict';

// qtimers' own code from here to the end() at the bottom (own-frames.js)
const ownFrom = require('./own-frames').begin();

const natives = require('./natives');
const clock = require('./clock');
const section = require('./section');
const context = require('./context');
const ids = require('./ids');
const { TimeoutStore } = require('./timeout-store');
const lateness = require('./lateness');
const { calledInContext, releaseContext } = require('./callback-context');
const { REFED, DESTROYED, CLEARED, REPEAT, EXTRA, CONTEXT, PRIMITIVE } = require('./flags');

// Captured at load: the globals may be replaced (by us) or removed (by tests) later.
const nativeSetInterval = natives.setInterval;
const nativeClearTimeout = natives.clearTimeout;
const tickCallback = natives.tickCallback;
const nextTick = natives.nextTick;
const needsEnd = section.needsEnd;
const contextState = context.state;
const NONE = context.NONE;
const ReflectApply = Reflect.apply;
const CLEARED_CALLBACK = natives.clearedCallback;

const settings = {
  // setTimeout.exactStart: stamp every timer with the time of its call, as Node does (false:
  // share one reading per synchronous section, which arms timers early after long work)
  exactStart: true,
};

const store = new TimeoutStore();
let refedCount = 0;               // linked timeouts with REFED (and a running one, see below)
let driver = null;                // the native interval that wakes us; kept for reuse
let driverDelay = -1;             // its delay now (refresh() re-arms with it)
// newDriver's argument, passed outside the call so that context.makeDriver needs no closure
let nextDriverDelay = 1;
let driverRefed = false;
// The expiry (clock ms) the driver is armed for, Infinity when it is not armed.  While the
// driver's own callback runs (`firing`), the expiry it is to be re-armed for when it returns.
let armedExpiry = Infinity;
let firing = false;
// The timeout whose callback is running, and whether its reference is counted in refedCount.
// Node counts a running timeout until its callback returns, unless the callback unrefs or
// clears it: ref(), unref() and clear*() adjust the count for it at once, as for a linked one.
let runningTimeout = null;
let runningCounted = false;
let resumeQueued = false;         // a nextTick is queued to resume a drain a callback threw out of
let resumeNow = 0;                // the reading that drain decided what was due by
let resumeSerial = 0;             // section.drainSerial() when it was queued
// stats.js's hook for a timer made (or revived by refresh()), while it tracks origins
let onAdd = null;
// refresh()'s moves noted and not yet made ("refresh() in batches" below).  Calls noted before
// the batch is worked through anyway: bounds what a long synchronous loop of refresh() calls
// holds (two array slots each) and keeps a batch inside the CPU's caches.
const REFRESH_BATCH = 1024;
const batchTimers = [];
const batchDelays = [];
for (let i = 0; i < REFRESH_BATCH; i++) {
  batchTimers.push(null);   // packed, never holey
  batchDelays.push(0);      // packed small integers, as delays are
}
let batched = 0;              // moves noted
let moved = 0;                // of those, made (below batched only while moveRefreshed runs)

// ---------------------------------------------------------------- what is counted

// The counts live in a Float64Array, not in variables, as lateness.js's do (why: there).
// How many callbacks started, a throwing one included, is the lateness histogram's count: each
// is filed there as it starts.
const THREW = 0;                  // callbacks that threw
const DRAINS = 1;                 // wakeups of the native driver
const tally = new Float64Array(2);
// the lateness histogram, filed inline by the drain
const {
  histogram: latenessHistogram, total: latenessTotal, largest: latenessLargest, EXACT_BUCKETS, latenessBucket,
} = lateness;
// Each callback's own start is read (a clock read per callback after a drain's first) from the
// first stats() on: a program that never asks pays nothing for it (docs/decisions.md).
let measuring = false;

// ---------------------------------------------------------------- the reference count

function countRef() {
  if (refedCount++ === 0) needsEnd();
}

function uncountRef() {
  if (--refedCount === 0) needsEnd();
}

/*
 * at the end of a section: armed for a deferred expiry, and referenced exactly when a referenced
 * timeout is pending
 */
function syncDriver() {
  if (driver === null) return;
  const want = refedCount > 0;
  if (want !== driverRefed) {
    driverRefed = want;
    if (want) driver.ref(); else driver.unref();
  }
}

// the moves refresh() owes first: they may want the driver earlier (a delay made shorter), and
// are made before the section ends anyway (a timer due then must be armed for by then)
section.atEnd(function moveRefreshedAtEnd() {
  if (batched !== 0) moveRefreshed();
});
section.atEnd(syncDriver);

// ---------------------------------------------------------------- the driver

// The driver is a native setInterval whose period is set, while its callback runs, to what the
// next wakeup needs (null: none): Node re-arms an interval when its callback returns, counting
// from the time it read before calling it, as it counts a timer armed in a native timer's
// callback.  So a timer armed in a drain, or pending behind the timers it ran, is due in the
// first timers phase after the drain if its expiry has passed by then, however long the drain
// ran, and re-arming costs no call of ours.  Outside its callback it is armed at the call that
// wants it earlier, as Node arms its own timer (scheduleTimer in insert()).

function armDriver(expiry) {
  // from the time now, read now: the native timer counts from its own call, which is now
  let delay = expiry - clock.now();
  if (delay < 1) delay = 1;
  armedExpiry = expiry;
  if (driver !== null) {
    if (contextState.programHooks && !driver._destroyed) {
      retimeDriver(delay);
      return;
    }
    if (delay === driverDelay) {
      driver._repeat = delay;   // null if it fired as the last wakeup needed
      if (contextState.mode !== NONE) context.makeDriver(refreshNative, driver);
      else driver.refresh();
      return;
    }
    nativeClearTimeout(driver);
  }
  nextDriverDelay = delay;
  driver = contextState.mode !== NONE ? context.makeDriver(newDriver) : newDriver();
  driverDelay = delay;
  driverRefed = true;
  if (refedCount === 0) {
    driverRefed = false;
    driver.unref();
  }
}

function newDriver() {
  return nativeSetInterval(runTimeouts, nextDriverDelay);
}

// While a program's own async hook may watch, the driver is one native timer for good, made
// before any such hook was enabled (or at load, if one was before): a timer made at a call
// would be made in the program's current context, which a hook-based context manager
// (OpenTelemetry's AsyncHooksContextManager) passes on to every callback the driver runs that
// was scheduled with no context.  Re-timed by refresh(), which makes no new async resource
// while the timer is not destroyed; so it is never let go: idle, its period is IDLE_PERIOD.
const IDLE_PERIOD = 2147483647;   // Node's TIMEOUT_MAX

function retimeDriver(delay) {
  driver._idleTimeout = delay;
  driver._repeat = delay;
  driverDelay = delay;
  driver.refresh();
}

function keepDriver() {
  if (driver !== null && !driver._destroyed) return;
  nextDriverDelay = IDLE_PERIOD;
  driver = context.makeDriver(newDriver);
  driverDelay = IDLE_PERIOD;
  driverRefed = false;
  driver.unref();
}
context.onProgramHook(keepDriver);
if (contextState.programHooks) keepDriver();

function refreshNative(timer) {
  timer.refresh();
}

/* the driver must fire by `expiry` */
function wantDriverBy(expiry) {
  if (expiry < armedExpiry) {
    if (firing) {
      armedExpiry = expiry;               // re-armed by Node as the callback returns (rearmFired)
    } else {
      armDriver(expiry);
    }
  }
}

// The driver's period after a callback threw.  Node re-arms it into a list of that delay, due at
// the time Node read before calling it plus -1 ms, so Node's retry after its 'uncaughtException'
// handler, which runs what is due by the reading it began with, runs it again (see
// drainTimeouts' finally), even if Node's clock ticked between that reading and the driver's
// start.  -1 is also Node's mark of a disarmed timer, which it gives the driver's _idleTimeout
// on the way: the driver's run puts a delay back in its place, so that Node re-arms it again.
const RESUME_PERIOD = -1;
let resumeArmed = false;          // the driver was re-armed with RESUME_PERIOD

/*
 * the driver's callback returns (`completed`: no callback threw): its period is what Node
 * re-arms it with, from its start
 */
function rearmFired(now, completed) {
  firing = false;
  if (!completed) {
    driver._repeat = RESUME_PERIOD;
    resumeArmed = true;
    armedExpiry = now;
  } else if (armedExpiry === Infinity) {
    if (contextState.programHooks) {
      driver._repeat = IDLE_PERIOD;       // kept for good (retimeDriver)
      driverDelay = IDLE_PERIOD;
    } else {
      driver._repeat = null;              // nothing pending: Node lets it go (kept for refresh())
    }
  } else {
    let delay = armedExpiry - now;
    if (delay < 1) delay = 1;
    driver._repeat = delay;
    driverDelay = delay;
  }
}

// ---------------------------------------------------------------- add, cancel, refresh, ref

/* the time a timer made or refreshed now starts at */
function startNow() {
  return settings.exactStart ? clock.now() : clock.sectionNow();
}

/* link a timeout whose _idleTimeout and _flags are set, starting now */
function addTimeout(timer) {
  addTimeoutAt(timer, startNow());
  if (onAdd !== null) onAdd(timer);
}

function addTimeoutAt(timer, start) {
  if (batched !== 0) moveRefreshed();   // a timer refreshed earlier goes ahead of this one
  const msecs = Math.trunc(timer._idleTimeout);   // as Node: no sub-millisecond accuracy assumed
  timer._idleStart = start;
  store.append(timer, msecs);
  if (timer._flags & REFED) countRef();
  wantDriverBy(start + msecs);
}

// The period of each interval cleared before it was done (its _idleTimeout is -1 then, as
// Node's), for its _repeat, which Node leaves as it was.  Only cleared intervals are in it.
const clearedPeriods = new WeakMap();

/* a cleared interval's period (its _repeat) */
function clearedPeriod(timer) {
  return clearedPeriods.get(timer);
}

/* a cleared interval's _repeat set by the program */
function setClearedPeriod(timer, period) {
  clearedPeriods.set(timer, period);
}

function cancelTimeout(timer) {
  const f = timer._flags;
  if (f & CLEARED) return;
  if (timer._idlePrev !== null) {
    store.unlink(timer);
    if (f & REFED) uncountRef();
  } else if (timer === runningTimeout && runningCounted) {
    runningCounted = false;
    uncountRef();
  }
  if (!(f & DESTROYED)) {
    // as Node's unenroll(): a timer cleared before it was done has the delay -1, and an
    // interval's period stays what its _repeat says
    if (f & REPEAT) clearedPeriods.set(timer, timer._idleTimeout);
    timer._idleTimeout = -1;
  }
  timer._flags = f | DESTROYED | CLEARED;   // as Node, it keeps its ref flag (hasRef())
  timer._onTimeout = CLEARED_CALLBACK;   // as Node's on this version
  if (f & EXTRA) {
    timer._timerArgs = undefined;
    if (f & CONTEXT) releaseContext(timer);
  }
  if (f & PRIMITIVE) ids.forget(timer);
}

function refreshTimeout(timer) {
  // The clock first, before any field of the timer is read: see "refresh() in batches".
  const start = startNow();
  // pending (a pending timer is never cleared, clearing unlinks it, so its flags need not be
  // read): a new start now, as Node's, behind the others of its delay as it is at the call
  if (typeof timer._idleNext === 'number') {
    // in a ring: the move goes in the batch (its slot number, never a neighbour, says so)
    timer._idleStart = start;
    const n = batched === REFRESH_BATCH ? makeRoomInBatch() : batched;
    batchTimers[n] = timer;
    batchDelays[n] = Math.trunc(timer._idleTimeout);
    batched = n + 1;
    if (n === 0) needsEnd();
  } else if (timer._idlePrev !== null) {
    // linked: moved now, behind the moves noted before it
    if (batched !== 0) moveRefreshed();
    const msecs = Math.trunc(timer._idleTimeout);
    store.restart(timer, start, msecs);
    wantDriverBy(start + msecs);
  } else {
    reviveTimeout(timer, start);
  }
}

/* refresh() of a timeout that is not pending: a fired (or running) one is armed again from
   `start`, a cleared one stays cleared */
function reviveTimeout(timer, start) {
  const f = timer._flags;
  if (f & CLEARED) return;
  if (f & DESTROYED) {
    // fired: refresh() revives it (documented Node behaviour); it needs a context again
    timer._flags = f & ~DESTROYED;
    if (contextState.mode !== NONE) {
      // the context current now, as Node gives a revived timer; a timer made before contexts
      // were tracked gets the field as its own (a rare second shape, only on this path)
      timer._asyncContext = context.timerResource('Timeout', timer);
      timer._flags |= CONTEXT | EXTRA;
    }
  }
  addTimeoutAt(timer, start);
  if (onAdd !== null) onAdd(timer);
}

// ---------------------------------------------------------------- refresh() in batches
//
// refresh() decides at the call what it does, as before: a cleared timer stays cleared, a fired
// or running one is linked again, a pending one gets its new start (_idleStart, the time of the
// call, as Node's) at once.  Only a pending timer's move behind the others of its delay can
// wait, and for a timer in a ring (timeout-store.js: a delay with many timers, refreshed often)
// it does: the call notes the timer and its delay at the call in a batch, and the moves are
// made together, in call order, before anything can see where a timer waits:
//
//   refresh() A, B, A ......... batch [A, B, A] ... moves: A, B, A -> the list ends ..., B, A
//                                   ^ made when the section ends (before the driver is
//                                     settled), before a timer is added (a new timer of A's
//                                     delay queues behind A), before a linked timer moves, at
//                                     every step of a drain, and before timers are listed
//
// So each list ends in the order of the calls, as if every call had moved its timer; a timer
// cleared in between was unlinked from where it waited, and its move is skipped.
// Why: the clock is read first, before any field of the timer, because the clock read waits
// for every earlier load (RDTSCP), and a timer's field among many timers misses the caches; and
// the moves made back to back cost less than moving at each call.  A linked list (in the caches)
// moves at the call.  Measurements: docs/decisions.md, "refresh() reads the clock first; a
// ring's moves are made in batches".

/* the batch is full: its moves are made; the index the next one is noted at */
function makeRoomInBatch() {
  moveRefreshed();
  return batched;
}

/* make the moves noted, in call order; a timer cleared since is no longer pending: skipped */
function moveRefreshed() {
  // `moved` is the module's, not a local: if arming the driver reaches user code (an async
  // hook) that refreshes or adds a timer, the nested call goes on from the next move, and
  // every move is made once, in order
  while (moved < batched) {
    const i = moved++;
    const timer = batchTimers[i];
    batchTimers[i] = null;
    if (timer._idlePrev === null) continue;
    const msecs = batchDelays[i];
    if (store.requeueInRing(timer, msecs)) continue;
    // its delay was changed: to another list, which may expire first
    const start = timer._idleStart;
    store.restart(timer, start, msecs);
    wantDriverBy(start + msecs);
  }
  batched = 0;
  moved = 0;
}

function refTimeout(timer) {
  const f = timer._flags;
  if (f & REFED) return;
  timer._flags = f | REFED;
  if (timer._idlePrev !== null) {
    countRef();
  } else if (timer === runningTimeout && !runningCounted && !(f & CLEARED)) {
    runningCounted = true;
    countRef();
  }
}

function unrefTimeout(timer) {
  const f = timer._flags;
  if (!(f & REFED)) return;
  timer._flags = f & ~REFED;
  if (timer._idlePrev !== null) {
    uncountRef();
  } else if (timer === runningTimeout && runningCounted) {
    runningCounted = false;
    uncountRef();
  }
}

// ---------------------------------------------------------------- the drain

function runTimeouts() {
  armedExpiry = Infinity;       // it just fired
  if (resumeArmed) {
    // run again right after a throw, by the reading the drain thrown out of decided by, as
    // Node's retry (the same wakeup, not counted again); the nextTick queued for it finds
    // nothing left to do
    resumeArmed = false;
    resumeQueued = false;
    driver._idleTimeout = driverDelay = 1;
    firing = true;
    drainTimeouts(resumeNow, -1);
    return;
  }
  tally[DRAINS] += 1;
  firing = true;
  // what is due is decided against one reading, as Node does: timers that callbacks of this
  // drain arm (even with 0 ms) wait for the next one
  const now = clock.now();
  drainTimeouts(now, now);
}

/*
 * run what is due by the reading `now`; `started`: when the first callback starts (the same
 * reading, when it was read just now), or -1
 */
function drainTimeouts(now, started) {
  section.drainStarted();
  let repeatStart = 0;          // the start of a running interval's callback
  // the clock when the next callback starts: each is stamped with a reading of its own (for its
  // lateness and an interval's next period), the first of a drain with the drain's
  let stamp = started;
  let ticksOwed = false;        // as in runImmediates: drained before the next callback
  let completed = false;
  try {
    for (;;) {
      if (batched !== 0) moveRefreshed();   // refreshed by the last callback or its ticks
      const list = store.peek();
      if (list === undefined) break;
      const head = list.first();
      if (head === null || head._idleStart !== list.start) {
        // empty, or its head left since it was keyed: re-key and look again
        store.rekeyTop();
        continue;
      }
      // due: expired, and not started in this very millisecond (a 0 ms timer made by a
      // callback of this drain would otherwise run in it, and could do so forever)
      if (list.expiry > now || head._idleStart >= now) break;
      if (ticksOwed) {
        if (tickCallback === null) break;   // Node drains them when this turn ends; the rest wait
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
        if (f & REFED) uncountRef();
        continue;
      }
      // As Node: an interval's next period counts from the start of its callback (also for a
      // timeout whose callback makes it an interval by setting _repeat, afterTimeout).
      if (f & REPEAT) repeatStart = startNow();
      // how late it starts (the list is still keyed by its expiry): by the drain's reading for
      // its first callback, an interval's own, or, once stats() was asked, a reading made for
      // it (never before the drain's, which measureNow() can be by one, near a millisecond's
      // boundary); until then, by the drain's
      if (stamp < 0) {
        stamp = (f & REPEAT) && settings.exactStart ? repeatStart : measuring ? clock.measureNow() : now;
        if (stamp < now) stamp = now;
      }
      const late = stamp - list.expiry;
      latenessHistogram[late < EXACT_BUCKETS ? late : latenessBucket(late)] += 1;
      latenessTotal[0] += late;
      if (late > latenessLargest[0]) latenessLargest[0] = late;
      // As with immediates, its reference is released after its callback (by afterTimeout).
      runningTimeout = head;      // cleaned up by the finally if its callback throws
      runningCounted = (f & REFED) !== 0;
      stamp = -1;
      if (f & EXTRA) runWithExtras(head, f);
      else if (contextState.mode === NONE) head._onTimeout();
      else context.callWithoutContext(head._onTimeout, head, undefined);
      runningTimeout = null;
      afterTimeout(head, runningCounted, repeatStart);
      clock.callbackRan();
      ticksOwed = true;
    }
    completed = true;
  } finally {
    if (runningTimeout !== null) {
      const thrower = runningTimeout;
      tally[THREW] += 1;
      runningTimeout = null;
      afterTimeout(thrower, runningCounted, repeatStart);
    }
    // Armed before Node sees the throw, also when a callback threw: Node refs its timer handle
    // by what its lists hold when its timers callback returns, and with none there an arming
    // later counts on Node's count of referenced timers, which a foreign object handed to
    // Timeout.prototype.ref can have left one too high (the process would end with this
    // drain's timers pending).  In the driver's own callback this only notes the expiry
    // (rearmFired decides the period).
    wantFirst();
    if (!completed && !resumeQueued) {
      // A callback threw.  Node reports the exception and then, at once, goes on with the
      // timers that were due, by the same reading, before any nextTick (those queued by an
      // 'uncaughtException' handler included) and before immediates.  Thrown out of the
      // driver's own callback, Node's retry runs the driver again (rearmFired), or, when that
      // retry first runs a list Node kept for the driver, runs the nextTick queue just before
      // it, where a nextTick queued now, ahead of the handler's, resumes the drain.  Outside
      // the driver's callback (a drain resumed so), only the nextTick.
      resumeQueued = true;
      resumeNow = now;
      resumeSerial = section.drainSerial();
      // queued from the top level: not in the domain the throw left active for Node's handler
      if (contextState.mode !== NONE) context.callAtRoot(nextTick, resumeTimeouts);
      else nextTick(resumeTimeouts);
    }
    // settles the driver while this drain's reading is still the clock's, then hands it back
    section.drainEnded();
    if (firing) rearmFired(now, completed);
  }
}

function resumeTimeouts() {
  resumeQueued = false;
  // Usually this runs right after the throw.  But a callback of a drain resumed so can throw
  // too, out of Node's tick queue: the ticks still queued then wait for the next callback that
  // returns to Node, and if that is another qtimers drain (an immediate's), this one would start
  // timers between that drain's callback and its own ticks.  Then the driver takes them instead,
  // at the next timers phase: late by a loop turn, never early.
  if (section.drainSerial() !== resumeSerial) {
    wantFirst();
    return;
  }
  drainTimeouts(resumeNow, -1);
}

function runWithExtras(timer, f) {
  const args = timer._timerArgs;
  if (!calledInContext(timer, timer._onTimeout, args, f)) {
    // spelled out, as in immediates.js's runWithExtras
    if (args === undefined) timer._onTimeout();
    else if (args.length === 1) timer._onTimeout(args[0]);
    else if (args.length === 2) timer._onTimeout(args[0], args[1]);
    else if (args.length === 3) timer._onTimeout(args[0], args[1], args[2]);
    else ReflectApply(timer._onTimeout, timer, args);
  }
}

/* want the driver for the first list's exact expiry (re-keying stale tops on the way) */
function wantFirst() {
  if (batched !== 0) moveRefreshed();
  for (;;) {
    const list = store.peek();
    if (list === undefined) return;
    const head = list.first();
    if (head !== null && head._idleStart === list.start) {
      wantDriverBy(list.expiry);           // usually armed already, by a callback's setTimeout
      return;
    }
    store.rekeyTop();
  }
}

/*
 * a timeout's callback has returned (or thrown); `counted`: its reference is still counted;
 * `start`: when the callback started, from which an interval's next period counts
 */
function afterTimeout(timer, counted, start) {
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
  if (counted) uncountRef();
}

// ---------------------------------------------------------------- what it holds

/* stats() was asked: from now on each callback's lateness is measured from its own start */
function measureStarts() {
  measuring = true;
}

/* what was counted since load or the last resetCounts(), for stats.js (the histogram copied) */
function counts() {
  const late = lateness.read();
  return {
    ran: lateness.filed(),
    threw: tally[THREW],
    drains: tally[DRAINS],
    lateness: late.buckets,
    latenessSum: late.sum,
    latenessMax: late.max,
  };
}

function resetCounts() {
  tally.fill(0);
  lateness.reset();
}

/*
 * visit(timer, delay) for every pending timeout and interval, list by list, each list in expiry
 * order: the linked ones, and an interval whose callback runs now (it will be linked again)
 */
function forEachPending(visit) {
  if (batched !== 0) moveRefreshed();
  const heap = store.heap;
  for (let i = 0; i < heap.length; i++) {
    heap[i].forEach(visit);
  }
  const t = runningTimeout;
  if (t !== null && t._idlePrev === null && (t._flags & (REPEAT | CLEARED)) === REPEAT && t._idleTimeout >= 0) {
    visit(t, Math.trunc(t._idleTimeout));
  }
}

/*
 * the timeout whose callback runs now, if `resource` (what Node's executionAsyncResource()
 * answers) is the native driver that runs it; else null
 */
function executionResource(resource) {
  return runningTimeout !== null && resource === driver ? runningTimeout : null;
}

/* stats.js's hook for every timer made or revived from now on (null: none) */
function onTimeoutAdded(hook) {
  onAdd = hook;
}

/* the store's and the driver's state now, for stats.js */
function snapshot() {
  return {
    refed: refedCount,                // a running timeout included while counted, as Node counts it
    lists: store.heap.length,
    armed: armedExpiry !== Infinity,
    // a native Timeout counts while referenced and not destroyed (also while its callback runs)
    driverActive: driver !== null && driverRefed && !driver._destroyed,
  };
}

module.exports = {
  settings,
  addTimeout, cancelTimeout, refreshTimeout, refTimeout, unrefTimeout, clearedPeriod, setClearedPeriod,
  snapshot, forEachPending, counts, resetCounts, measureStarts, onTimeoutAdded,
  executionResource,
};

require('./own-frames').end(ownFrom);
