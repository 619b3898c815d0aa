/*
 * timeout-drain: running qtimers' due timeouts and intervals, the drain the native driver runs.
 *
 * Owns the drain (timeout-driver.js runs it): what is due by one clock reading, in expiry
 * order, with the nextTick and microtask queues drained between two callbacks; the timeout
 * whose callback runs and whether its reference is still counted; an interval's re-arming
 * from its callback's start (afterTimeout); and, for stats.js, each callback's lateness and
 * counts, filed inline (lateness.js, timeout-counts.js).  A callback that throws leaves the
 * drain with the exception still propagating, as a native one, and the rest runs by the same
 * reading right after the handler, as Node's (timeout-resume.js).  Coarse timeouts due are
 * settled and handed over by coarse.js at a drain's start; from there they run here like any
 * other.  timeouts.js (add, cancel, refresh, ref) asks it about the running timeout.
 * It must never call user code except in drainTimeouts, never allocate per callback there,
 * and never use the globals.
 */
'use strict';

// qtimers' own code from here to the end() at the bottom (own-frames.js)
const ownFrom = require('./own-frames').begin();

const natives = require('./natives');
const clock = require('./clock');
const section = require('./section');
const context = require('./context');
const ids = require('./ids');
const driver = require('./timeout-driver');
const { settled } = require('./refresh-batch');
const lateness = require('./lateness');
const resume = require('./timeout-resume');
const { THREW, DRAINS, tally, fileCoarse } = require('./timeout-counts');
const { calledInContext, releaseContext } = require('./callback-context');
const { REFED, DESTROYED, CLEARED, REPEAT, EXTRA, CONTEXT, COARSE, PRIMITIVE } = require('./flags');
const { settings, lastRead, driveFor, addTimeoutAt } = require('./timeout-arming');
const coarse = require('./coarse');

// Captured at load: the globals may be replaced (by us) or removed (by tests) later.
const runTicks = natives.runTicks;
const contextState = context.state;
const NONE = context.NONE;
const ReflectApply = Reflect.apply;
const { hrtime, msOf } = clock;
const { countRef, uncountRef, wantDriverBy } = driver;
const coarseState = coarse.state;
const { timeouts: exactLateness, EXACT_BUCKETS, fileWide } = lateness;
const latenessHistogram = exactLateness.buckets;

// The timeout whose callback is running, and whether its reference is counted in the driver's
// count.  Node counts a running timeout until its callback returns, unless the callback unrefs
// or clears it: ref(), unref() and clear*() adjust the count for it at once (uncountRunning,
// countRunning), as for a linked one.
let runningTimeout = null;
let runningCounted = false;
// Each callback's own start is read (a clock read per callback after a drain's first) from the
// first stats() on: a program that never asks pays nothing for it (docs/decisions.md).
let measuring = false;

// ---------------------------------------------------------------- the running timeout

/* `timer`, if it is the running one and counted, is cleared or unref'd: no longer counted */
function uncountRunning(timer) {
  if (timer === runningTimeout && runningCounted) {
    runningCounted = false;
    uncountRef();
  }
}

/* `timer`, if it is the running one, not counted and not cleared, is ref'd: counted again */
function countRunning(timer) {
  if (timer === runningTimeout && !runningCounted && !(timer._flags & CLEARED)) {
    runningCounted = true;
    countRef();
  }
}

// ---------------------------------------------------------------- the drain

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
      addTimeoutAt(timer, start, false);
    } else {
      timer._flags = f | DESTROYED;
      if (f & CONTEXT) releaseContext(timer);
      if (f & PRIMITIVE) ids.fired(timer);   // as Node: a fired timeout's id is let go
    }
  }
  if (counted) uncountRef();
}

/*
 * whether an interval whose callback has returned can go straight back into its delay's list,
 * from `start` (afterTimeout's re-adding, without its layers): not refresh()ed, cleared or
 * disarmed there, no coarse mode on, and its reference counted exactly while it is referenced,
 * so that the count stays as it is.  The driver needs no request: the drain's end wants the
 * first list's expiry (wantFirst), whichever list the interval joined.
 */
function relinked(timer, counted, start) {
  const f = timer._flags;
  if ((f & (REPEAT | CLEARED)) !== REPEAT || timer._idlePrev !== null || timer._idleTimeout < 0 ||
      counted !== ((f & REFED) !== 0) || coarseState.active) {
    return false;
  }
  timer._idleStart = start;
  settled().append(timer, Math.trunc(timer._idleTimeout));   // behind moves its callback made
  return true;
}

/* want the driver for the first list's exact expiry (re-keying stale tops on the way) */
function wantFirst() {
  const store = settled();
  for (;;) {
    const list = store.peek();
    if (list === undefined) return;
    const head = list.first();
    if (head !== null && head._idleStart === list.start) {
      wantDriverBy(list.expiry);           // usually armed already, by a callback's setTimeout
      if (head._flags & CONTEXT) driveFor(head, list.expiry);
      return;
    }
    store.rekeyTop();
  }
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
      const store = settled();  // refreshed by the last callback or its ticks
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
        if (!context.ticksInTurn(runTicks)) break;   // none on this Node: Node drains them when this turn ends; the rest wait
        ticksOwed = false;
        // The ticks may have cleared, refreshed or added timers: look again, unless the head is
        // still the first of the first list, from the same start.  Whatever they added or
        // refreshed starts at this reading or later, so it is not due by it.
        if (store.peek() !== list || list.first() !== head || head._idleStart !== list.start) continue;
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
      if (f & REPEAT) repeatStart = settings.exactStart ? msOf(hrtime()) : clock.sectionNow();
      // how late it starts (its list is still keyed by its expiry): by the drain's reading for
      // its first callback, an interval's own, else, once stats() was asked, its own reading,
      // until then the drain's
      if (stamp < 0) stamp = (f & REPEAT) && settings.exactStart ? repeatStart : measuring ? clock.now() : now;
      if (f & COARSE) {
        fileCoarse(stamp, head);   // apart, from its own expiry (its list's key is not)
      } else {
        const late = stamp - list.expiry;
        if (late < EXACT_BUCKETS) latenessHistogram[late] += 1;
        else fileWide(exactLateness, late);
      }
      // As with immediates, its reference is released after its callback (by afterTimeout).
      runningTimeout = head;      // cleaned up by the finally if its callback throws
      runningCounted = (f & REFED) !== 0;
      stamp = -1;
      if (f & EXTRA) runWithExtras(head, f);
      else if (contextState.mode === NONE) head._onTimeout();
      else context.callWithoutContext(head._onTimeout, head, undefined);
      runningTimeout = null;
      if (!relinked(head, runningCounted, repeatStart)) afterTimeout(head, runningCounted, repeatStart);
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
    // Armed before Node sees a throw: Node refs its timer handle by its lists when its timers
    // callback returns; armed later, the driver would rest on Node's count of referenced timers,
    // which a foreign `this` handed to Timeout.prototype.ref can leave one too high.  In the
    // driver's own callback this only notes the expiry (rearmFired).
    wantFirst();
    // a callback threw: the rest of what was due by this reading runs right after Node's
    // handler (timeout-resume.js)
    if (!completed) resume.queueResume(now);
    // settles the driver while this drain's reading is still the clock's, then hands it back
    section.drainEnded();
    driver.rearmFired(now, completed, Math.max(lastRead(), repeatStart));
  }
}

/* the native driver's callback */
function runTimeouts() {
  // a driver made where a program's hook could see it (at load, if one was on before) leaves
  // the context it was made in first (context.leaveDriverContext)
  if (contextState.programHooks) context.leaveDriverContext();
  // Node entered the frame the driver kept (timeout-driver.js's driveIn): the drain's
  // callbacks of that frame run in it as they are
  const turn = driver.takeTurn();
  if (turn !== null) context.enterTurn(turn);
  try {
    if (driver.fire()) {
      resume.retry();     // Node's retry right after a throw (timeout-resume.js)
      return;
    }
    tally[DRAINS] += 1;
    // what is due is decided against one reading, as Node does: timers that callbacks of this
    // drain arm (even with 0 ms) wait for the next one
    const now = clock.now();
    if (coarseState.active) coarse.atDrain(now);   // before any callback: settled by this reading
    drainTimeouts(now, now);
  } finally {
    if (turn !== null) context.leaveTurn();
  }
}

// ---------------------------------------------------------------- what it holds

/* stats() was asked: from now on each callback's lateness is measured from its own start */
function measureStarts() {
  measuring = true;
}

/* the timeout whose callback runs now (or threw), or null: for timeout-listing.js */
function running() {
  return runningTimeout;
}

driver.runWith(runTimeouts);
resume.resumeWith(drainTimeouts, wantFirst);

module.exports = { uncountRunning, countRunning, measureStarts, running };

require('./own-frames').end(ownFrom);
