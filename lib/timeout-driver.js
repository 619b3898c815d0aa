/*
 * timeout-driver: the one native timer that wakes qtimers' timeouts, and the count that decides
 * whether it keeps the process alive.
 *
 * Owns the driver, a native setInterval whose callback is the drain timeout-drain.js hands over
 * (runWith): the expiry it is armed for, arming it (refresh() of the native timer when its delay
 * repeats), its period while its callback runs (Node re-arms an interval when its callback
 * returns, counting from the time Node read before calling it), its re-arming after a callback
 * threw, and its ref: referenced exactly when a referenced timeout is pending (the count
 * countRef/uncountRef keep), settled when the section ends (syncDriver).  Outside its callback
 * it is armed at the call that wants it earlier, as Node arms its own timer; with nothing
 * pending it is let go (kept for reuse) and there are no wakeups, except while a program's own
 * async hook may watch: then it is kept for good (keepDriver).
 * It must never call user code itself (a context manager's hooks may see a driver made), know
 * which timeouts are pending, or use the globals.
 */
'use strict';

// qtimers' own code from here to the end() at the bottom (own-frames.js)
const ownFrom = require('./own-frames').begin();

const natives = require('./natives');
const clock = require('./clock');
const section = require('./section');
const context = require('./context');

// Captured at load: the globals may be replaced (by us) or removed (by tests) later.
const nativeSetInterval = natives.setInterval;
const nativeClearTimeout = natives.clearTimeout;
const needsEnd = section.needsEnd;
const contextState = context.state;

// The driver's period after a callback threw.  Node re-arms it into a list of that delay, due at
// the time Node read before calling it plus -1 ms, so Node's retry after its 'uncaughtException'
// handler, which runs what is due by the reading it began with, runs it again, even if Node's
// clock ticked between that reading and the driver's start.  -1 is also Node's mark of a
// disarmed timer, which it gives the driver's _idleTimeout on the way: fire() puts a delay back
// in its place, so that Node re-arms it again.
const RESUME_PERIOD = -1;

let onFire = null;                // the drain, timeout-drain.js's runTimeouts (runWith)
let refedCount = 0;               // pending timeouts with REFED (and a running one, timeout-drain.js)
let driver = null;                // the native interval that wakes us; kept for reuse
let driverDelay = -1;             // its delay now (refresh() re-arms with it)
// newDriver's argument, passed outside the call so that context.asDriver needs no closure
let nextDriverDelay = 1;
let driverRefed = false;
// The expiry (clock ms) the driver is armed for, Infinity when it is not armed.  While the
// driver's own callback runs (`firing`), the expiry it is to be re-armed for when it returns.
let armedExpiry = Infinity;
let firing = false;
let resumeArmed = false;          // the driver was re-armed with RESUME_PERIOD
// Node's key of a native timer's async context frame (Node >= 24), found on the driver: Node
// runs the driver's callback in the frame kept there.  The frame given (driveIn), or null: that
// of the earliest pending timeout, in frames mode, so that the drain's callbacks of that frame
// need no scope of their own (context.enterTurn).
let frameKey;
let drivenFrame = null;

/* the drain the driver runs; set once, at load */
function runWith(drain) {
  onFire = drain;
  context.onProgramHook(keepDriver);
  if (contextState.programHooks) keepDriver();
}

function countRef() {
  if (refedCount++ === 0) needsEnd();
}

function uncountRef() {
  if (--refedCount === 0) needsEnd();
}

function newDriver() {
  const made = nativeSetInterval(onFire, nextDriverDelay);
  if (frameKey === undefined) frameKey = Object.getOwnPropertySymbols(made).find((key) => key.description === 'kAsyncContextFrame');
  drivenFrame = null;
  return made;
}

/* the driver is armed for a timeout of context `ctx` (or null): its callback is to run in its frame */
function driveIn(ctx) {
  if (driver === null || frameKey === undefined) return;
  const frame = context.frameToDrive(ctx);
  if (frame === drivenFrame || (frame === undefined && drivenFrame === null)) return;
  driver[frameKey] = frame;
  drivenFrame = frame === undefined ? null : frame;
}

/* the timeout of context `ctx` is gone: the driver must not keep its frame */
function letGo(ctx) {
  if (ctx === drivenFrame) driveIn(null);
}

/* the driver's callback starts: the frame Node entered for it (or null), no longer kept */
function takeTurn() {
  const frame = drivenFrame;
  if (frame !== null) driveIn(null);
  return frame;
}

/* whether the driver is armed for `expiry` (its earliest pending timeout's) */
function armedFor(expiry) {
  return armedExpiry === expiry;
}

function refreshNative(timer) {
  timer.refresh();
}

// While a program's own async hook may watch, the driver is one native timer for good, made
// before the first such hook was enabled (or at load, if one was before): a timer made at a
// call would be made in the program's current context, which a hook-based context manager
// (OpenTelemetry's AsyncHooksContextManager) passes on to every callback the driver runs that
// was scheduled with no context.  It is re-timed by refresh(), which makes no new async
// resource while the timer is not destroyed, so it is never let go: idle, its period is
// IDLE_PERIOD.
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
  driver = context.asDriver(newDriver);
  driverDelay = IDLE_PERIOD;
  driverRefed = false;
  driver.unref();
}

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
      context.asDriver(refreshNative, driver);
      return;
    }
    nativeClearTimeout(driver);
  }
  nextDriverDelay = delay;
  driver = context.asDriver(newDriver);
  driverDelay = delay;
  driverRefed = true;
  if (refedCount === 0) {
    driverRefed = false;
    driver.unref();
  }
}

/*
 * at the end of a section: referenced exactly when a referenced timeout is pending
 */
function syncDriver() {
  if (driver === null) return;
  const want = refedCount > 0;
  if (want !== driverRefed) {
    driverRefed = want;
    if (want) driver.ref(); else driver.unref();
  }
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

/*
 * the driver's callback starts: it is no longer armed; true when this is Node's retry after a
 * callback threw (rearmFired), which runs the drain thrown out of again (the same wakeup)
 */
function fire() {
  armedExpiry = Infinity;
  firing = true;
  if (!resumeArmed) return false;
  resumeArmed = false;
  driver._idleTimeout = driverDelay = 1;
  return true;
}

/*
 * a drain ends (`completed`: no callback threw); in the driver's own callback its period is set
 * to what Node re-arms it with, from its start `now`.  `lastRead`: the latest clock read of an
 * arming or of an interval's start (timeout-arming.js's lastRead, the drain's), which may be
 * older than `now`.
 */
function rearmFired(now, completed, lastRead) {
  if (!firing) return;
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
    // Node's own timer, re-armed as its timers callback returns, wakes for the first expiry but
    // no sooner than the millisecond after its loop time, which each arming and each interval's
    // start read again: timeouts that fell due while the callbacks ran wait for the next
    // millisecond natively, and so here.  The driver's period counts from `now`, where Node's
    // loop time stayed (qtimers' reads do not move it).
    let wake = armedExpiry;
    if (wake <= lastRead) wake = lastRead + 1;
    let delay = wake - now;
    if (delay < 1) delay = 1;
    driver._repeat = delay;
    driverDelay = delay;
  }
}

/* whether `resource` (what Node's executionAsyncResource() answers) is the driver */
function isDriver(resource) {
  return resource === driver && driver !== null;
}

/* the count and the driver's state now, for stats.js */
function driverState() {
  return {
    refed: refedCount,                // a running timeout included while counted, as Node counts it
    armed: armedExpiry !== Infinity,
    // a native Timeout counts while referenced and not destroyed (also while its callback runs)
    driverActive: driver !== null && driverRefed && !driver._destroyed,
  };
}

module.exports = {
  runWith, countRef, uncountRef, syncDriver, wantDriverBy, fire, rearmFired,
  isDriver, driverState, driveIn, letGo, takeTurn, armedFor,
};

require('./own-frames').end(ownFrom);
