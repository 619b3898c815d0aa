/*
 * shared/timeout-shaped: TimeoutShaped, an object with the fields of a Node Timeout, as many and
 * in Node's order, so that it is as large as the handle a drop-in timers library must return.
 * The stand-ins that bound what a library returning a handle per timer could win (coarse/
 * free-timers.js, apps/bounds/ttl-handle.js) make one per setTimeout; its methods answer as a
 * handle's do and do nothing.  It must never be used for anything but those measurements.
 */
'use strict';

class TimeoutShaped {
  constructor(callback, delay) {
    this._idleTimeout = delay;
    this._idlePrev = null;
    this._idleNext = null;
    this._idleStart = 0;
    this._onTimeout = callback;
    this._timerArgs = undefined;
    this._repeat = null;
    this._destroyed = false;
  }

  refresh() { return this; }
  unref() { return this; }
  ref() { return this; }
  hasRef() { return false; }
}

module.exports = { TimeoutShaped };
