/*
 * timeouts: the lifecycle of qtimers' setTimeout and setInterval timers.
 *
 * Owns adding, cancelling, refresh(), ref() and unref() of a timeout (pending, running,
 * destroyed).  A timer is linked from its start by timeout-arming.js and run by
 * timeout-drain.js, which keeps the running timeout (a clear, ref or unref of it adjusts the
 * count through the drain).  Pending timers wait in refresh-batch.js's store.  Coarse timeouts
 * (coarse.js, opt-in) are coarse.js's to place at arming, refresh() and clear.
 * It must never call user code, never read an exact timer's fields in refresh() before the
 * clock (with the coarse mode on, coarse.js reads its flags first, to read no clock at all for
 * a coarse one), and never use the globals.
 */
'use strict';

// qtimers' own code from here to the end() at the bottom (own-frames.js)
const ownFrom = require('./own-frames').begin();

const natives = require('./natives');
const section = require('./section');
const context = require('./context');
const ids = require('./ids');
const driver = require('./timeout-driver');
const batch = require('./refresh-batch');
const { setClearedPeriod } = require('./cleared-periods');
const { releaseContext } = require('./callback-context');
const { REFED, DESTROYED, CLEARED, REPEAT, EXTRA, CONTEXT, PRIMITIVE, COARSE } = require('./flags');
const { settings, startNow, driveFor, addTimeoutAt } = require('./timeout-arming');
const drain = require('./timeout-drain');
const coarse = require('./coarse');

// Captured at load: the globals may be replaced (by us) or removed (by tests) later.
const contextState = context.state;
const NONE = context.NONE;
const CLEARED_CALLBACK = natives.clearedCallback;
const { countRef, uncountRef, wantDriverBy } = driver;
const { settled } = batch;
const coarseState = coarse.state;

// stats.js's hook for a timer made (or revived by refresh()), while it tracks origins
let onAdd = null;

// ---------------------------------------------------------------- add, cancel, refresh, ref

/* link a timeout whose _idleTimeout and _flags are set, starting now */
function addTimeout(timer) {
  if (coarseState.active && coarse.armed(timer)) {
    if (timer._flags & REFED) countRef();   // coarse: noted, no clock
  } else {
    addTimeoutAt(timer, startNow(), true);
  }
  if (onAdd !== null) onAdd(timer);
}

function cancelTimeout(timer) {
  const f = timer._flags;
  if (f & CLEARED) return;
  if (f & DESTROYED) {
    // fired for good: Node's clearTimeout finds it destroyed and takes only its callback (and
    // keeps its id registered), so a refresh() arms it again, to run nothing when due and keep
    // the process alive until then, as Node's does
    timer._onTimeout = CLEARED_CALLBACK;
    return;
  }
  if (timer._idlePrev !== null) {
    if (!(f & COARSE) || !coarse.unlinked(timer)) batch.unlink(timer);
    if (f & REFED) uncountRef();
  } else {
    drain.uncountRunning(timer);
  }
  // as Node's unenroll(): a timer cleared before it was done has the delay -1, and an interval's
  // period stays what its _repeat says
  if (f & REPEAT) setClearedPeriod(timer, timer._idleTimeout);
  timer._idleTimeout = -1;
  timer._flags = f | DESTROYED | CLEARED;   // as Node, it keeps its ref flag (hasRef())
  timer._onTimeout = CLEARED_CALLBACK;   // as Node's on this version
  if (f & EXTRA) {
    if (timer._timerArgs !== undefined) timer._timerArgs = undefined;   // a field only its own
    if (f & CONTEXT) {
      driver.letGo(timer._asyncContext);
      releaseContext(timer);
    }
  }
  if (f & PRIMITIVE) ids.forget(timer);
}

/* refresh() of a timeout that is not pending: a fired (or running) one is armed again from
   `start` (one cleared after it fired too, with no callback left), a cleared one stays cleared */
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
    ids.revived(timer);
  }
  addTimeoutAt(timer, start, true);
  if (onAdd !== null) onAdd(timer);
}

// refresh() decides at the call: a cleared timer stays cleared, a fired or running one is linked
// again, a pending one gets its new start (the time of the call, as Node's) at once; a ring's
// timer's move waits in refresh-batch.js.  The clock is read before any field of the timer (the
// read waits for every earlier load, and a timer's field among many misses the caches).
function refreshTimeout(timer) {
  if (coarseState.active && coarse.refreshed(timer)) return;   // coarse: noted, no clock
  const start = startNow();
  // pending (a pending timer is never cleared, clearing unlinks it, so its flags need not be
  // read): a new start now, as Node's, behind the others of its delay as it is at the call
  if (typeof timer._idleNext === 'number') {
    // in a ring (its slot number, never a neighbour, says so): the move waits in the batch
    timer._idleStart = start;
    batch.noteMove(timer, Math.trunc(timer._idleTimeout));
  } else if (timer._idlePrev !== null) {
    // linked: moved now, behind the moves noted before it (into a busy list: the driver stays)
    const msecs = Math.trunc(timer._idleTimeout);
    timer._idleStart = start;
    if (settled().requeueLinked(timer, msecs)) return;
    settled().restart(timer, start, msecs);
    wantDriverBy(start + msecs);
    if (timer._flags & CONTEXT) driveFor(timer, start + msecs);
  } else {
    reviveTimeout(timer, start);
  }
}

function refTimeout(timer) {
  const f = timer._flags;
  if (f & REFED) return;
  timer._flags = f | REFED;
  if (timer._idlePrev !== null) countRef();
  else drain.countRunning(timer);
}

function unrefTimeout(timer) {
  const f = timer._flags;
  if (!(f & REFED)) return;
  timer._flags = f & ~REFED;
  if (timer._idlePrev !== null) uncountRef();
  else drain.uncountRunning(timer);
}

// ---------------------------------------------------------------- what it holds

/* stats.js's hook for every timer made or revived from now on (null: none) */
function onTimeoutAdded(hook) {
  onAdd = hook;
}

// at a section's end, the moves refresh() owes first: they may want the driver earlier (a delay
// made shorter), and a timer due then must be armed for by then
section.atEnd(batch.settleAtEnd);
section.atEnd(driver.syncDriver);

module.exports = {
  settings, addTimeout, cancelTimeout, refreshTimeout, refTimeout, unrefTimeout,
  onTimeoutAdded,
};

require('./own-frames').end(ownFrom);
