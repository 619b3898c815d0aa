/*
 * timeout-arming: putting a timeout in the store for its start, and the start it gets.
 *
 * Owns the knob of what a timer is stamped with (setTimeout.exactStart), the start a timer made
 * or refreshed now gets (startNow), and linking a timeout into the store from a start
 * (addTimeoutAt): in its delay's list, counted if referenced, the driver wanted by its expiry
 * and, for a timeout with a context that is due first, driven in its frame; and the latest
 * start it read (lastRead), which Node's loop time would be.  A coarse timeout
 * (coarse.js, opt-in) is placed there instead.  Shared by timeouts.js (add, refresh) and
 * timeout-drain.js (an interval's re-arming).
 * It must never call user code, unlink a timer, or use the globals.
 */
'use strict';

// qtimers' own code from here to the end() at the bottom (own-frames.js)
const ownFrom = require('./own-frames').begin();

const clock = require('./clock');
const driver = require('./timeout-driver');
const { settled } = require('./refresh-batch');
const { REFED, CONTEXT } = require('./flags');
const coarse = require('./coarse');

const { countRef, wantDriverBy } = driver;
const coarseState = coarse.state;

const settings = {
  // setTimeout.exactStart: stamp every timer with the time of its call, as Node does (false:
  // share one reading per synchronous section, which arms timers early after long work)
  exactStart: true,
};

// The latest start read for an arming: natively every arming reads, and so moves, libuv's loop
// time, from which Node re-arms its timer as its timers callback returns (timeout-driver.js's
// rearmFired).  Reads that Node does not make (stats(), currentTimestamp()) are not counted.
let lastArmingRead = 0;

/* the time a timer made or refreshed now starts at */
function startNow() {
  return settings.exactStart ? (lastArmingRead = clock.now()) : clock.sectionNow();
}

/* the latest clock read startNow() made */
function lastRead() {
  return lastArmingRead;
}

/* a timeout with a context is pending for `expiry`: the driver runs in its frame if it is due first */
function driveFor(timer, expiry) {
  if (driver.armedFor(expiry)) driver.driveIn(timer._asyncContext);
}

/* `fresh`: `start` was read at this call (not an interval's start, read before its callback) */
function addTimeoutAt(timer, start, fresh) {
  if (coarseState.active && coarse.armedAt(timer, start, fresh && settings.exactStart)) {
    if (timer._flags & REFED) countRef();
    return;
  }
  const store = settled();   // a timer refreshed earlier goes ahead of this one
  const msecs = Math.trunc(timer._idleTimeout);   // as Node: no sub-millisecond accuracy assumed
  timer._idleStart = start;
  store.append(timer, msecs);
  if (timer._flags & REFED) countRef();
  wantDriverBy(start + msecs);
  if (timer._flags & CONTEXT) driveFor(timer, start + msecs);
}

module.exports = { settings, startNow, lastRead, driveFor, addTimeoutAt };

require('./own-frames').end(ownFrom);
