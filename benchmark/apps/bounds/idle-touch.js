/*
 * bounds/idle-touch: heartbeats with idle timeouts that only write a field of their own
 * (preloaded: `node -r`): no clock, no list, never firing.
 *
 * Each idle timeout (the setTimeout of closeIdle) is an object of its own, as the handle any
 * timers library returns is, and its refresh() writes one of its fields, the least that still
 * tells that one timer it was refreshed (a coarse timer settled later by a shared reading does
 * that much).  Unlike idle-free.js's one shared object, each refresh() here reaches a timer of
 * its own among 100k, as a real one must.  The ping timers stay whatever setTimeout was when this
 * loaded: Node's, or qtimers' when qtimers is preloaded before it (bounds.js runs the latter).
 * It must never be used for anything but that measurement.
 */
'use strict';

const nativeSetTimeout = global.setTimeout;

class TouchOnly {
  constructor(delay) {
    this.delay = delay;
    this.touched = 0;
  }

  refresh() {
    this.touched = 1;
    return this;
  }

  unref() { return this; }
  ref() { return this; }
  hasRef() { return false; }
}

global.setTimeout = function setTimeout(callback, delay, arg) {
  return callback.name === 'closeIdle' ? new TouchOnly(delay) : nativeSetTimeout(callback, delay, arg);
};
