/*
 * bounds/idle-stamp: heartbeats with idle timeouts that only do what any exact refresh() must
 * (preloaded: `node -r`): read the clock and write the new start into the timer.
 *
 * Each idle timeout (the setTimeout of closeIdle) is an object of its own whose refresh() reads
 * the clock as Node does (process.hrtime.bigint(), whole ms) and stores the result; it is in no
 * list and never fires.  A timer that must fire no earlier than its delay after the last
 * refresh() cannot do less per refresh(), and this one skips all the rest (keeping its place in
 * expiry order, firing, the driver), so its CPU per message is a lower bound for any exact
 * implementation.  The ping timers stay whatever setTimeout was when this loaded: Node's, or
 * qtimers' when qtimers is preloaded before it (bounds.js runs both).
 * It must never be used for anything but that measurement.
 */
'use strict';

const nativeSetTimeout = global.setTimeout;
const hrtimeBigint = process.hrtime.bigint;
const NS_PER_MS = BigInt(1e6);

function nowMs() {
  return Number(hrtimeBigint() / NS_PER_MS);
}

class StampOnly {
  constructor(delay) {
    this.delay = delay;
    this.start = nowMs();
  }

  refresh() {
    this.start = nowMs();
    return this;
  }

  unref() { return this; }
  ref() { return this; }
  hasRef() { return false; }
}

global.setTimeout = function setTimeout(callback, delay, arg) {
  return callback.name === 'closeIdle' ? new StampOnly(delay) : nativeSetTimeout(callback, delay, arg);
};
