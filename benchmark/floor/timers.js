/**
 * The floors' implementation: a bare setImmediate and setTimeout that keep only what no drop-in
 * library can drop (benchmark/floor/run.js says what, and measures them against native and qtimers).
 *
 * makeFloor(tickDrain, exactStart) returns setImmediate, setTimeout, setInterval and clearTimeout
 * (which also clears intervals).  tickDrain = false leaves out the
 * process._tickCallback between two callbacks (test-benchmark.js shows that the drain is what
 * makes the difference).  exactStart = true stamps each timer with a clock read of its own call,
 * as qtimers must (lib/clock.js's now(), read the same way), and an interval's next period with a
 * clock read at its callback's start, as Node counts it; false stamps every timer of one
 * synchronous section or drain, and every interval's next period, with one shared reading, which
 * no exact library may do.
 * install(exactStart) puts them over the globals (install.js and exact-install.js,
 * the 'floor' and 'exact' modes of the benchmark's children).
 * It must never be used for anything but measuring: it has no unref, no arguments, no async
 * context, no error safety, no second delay (an interval's delay is its only one), no clear of an
 * immediate and no clear that re-arms the driver.
 */

'use strict';

const RING_SIZE = 16384;        // a power of two, above the 10k of the immediates' row

function makeFloor(tickDrain, exactStart) {
  const nativeSetImmediate = setImmediate;
  const nativeSetTimeout = setTimeout;
  const tick = tickDrain ? process._tickCallback : function() {};
  const hrtime = process.hrtime;
  const NS_PER_MS = 1e6;
  // counted from here, as lib/clock.js counts from load, so stamps stay small integers (Smis)
  const base = hrtime();
  const baseSeconds = base[0];
  const baseMs = Math.floor(base[1] / NS_PER_MS);

  /* the time now in whole ms: one clock read, as lib/clock.js's now() */
  function clockNow() {
    const t = hrtime();
    return Math.floor((t[0] - baseSeconds) * 1000 + Math.floor(t[1] / NS_PER_MS) - baseMs);
  }

  function Immediate(callback) {
    this._onImmediate = callback;
    this._destroyed = false;
  }
  const ring = new Array(RING_SIZE).fill(undefined);
  let head = 0, tail = 0, length = 0;
  let immediateDriver = null;

  function floorSetImmediate(callback) {
    if (typeof callback !== 'function') throw new TypeError('callback must be a function');
    const imm = new Immediate(callback);
    ring[tail] = imm;
    tail = (tail + 1) & (RING_SIZE - 1);
    length += 1;
    if (immediateDriver === null) immediateDriver = nativeSetImmediate(runImmediates);
    return imm;
  }

  function runImmediates() {
    immediateDriver = null;
    let owed = false;
    while (length > 0) {
      if (owed) tick();
      const imm = ring[head];
      ring[head] = undefined;
      head = (head + 1) & (RING_SIZE - 1);
      length -= 1;
      imm._destroyed = true;
      imm._onImmediate();
      imm._onImmediate = null;
      owed = true;
    }
  }

  // one delay only: a circular list in start order, as qtimers keeps each delay's timers
  function Timeout(callback, after) {
    this._onTimeout = callback;
    this._idleTimeout = after;
    this._idlePrev = null;
    this._idleNext = null;
    this._idleStart = 0;
    this._repeat = null;
    this._destroyed = false;
  }
  const list = { _idlePrev: null, _idleNext: null };
  list._idlePrev = list;
  list._idleNext = list;
  let now = -1;               // the shared reading of a section or drain (exactStart = false)
  let draining = false;
  let timeoutDriver = null;
  function forgetNow() { now = -1; }

  /* the shared reading, taken once per synchronous section or drain */
  function sharedNow() {
    if (now < 0) {
      now = clockNow();
      if (!draining) queueMicrotask(forgetNow);
    }
    return now;
  }
  const stampNow = exactStart ? clockNow : sharedNow;

  function floorSetTimeout(callback, after) {
    if (typeof callback !== 'function') throw new TypeError('callback must be a function');
    const timer = new Timeout(callback, after);
    start(timer);
    if (timeoutDriver === null && !draining) timeoutDriver = nativeSetTimeout(runTimeouts, after);
    return timer;
  }

  function floorSetInterval(callback, after) {
    const timer = floorSetTimeout(callback, after);
    timer._repeat = after;
    return timer;
  }

  /* clearTimeout and clearInterval: unlinked if pending; not re-linked if its callback runs */
  function floorClearTimeout(timer) {
    if (!timer || !timer._onTimeout) return;
    timer._onTimeout = null;
    timer._destroyed = true;
    if (timer._idlePrev !== null) unlink(timer);
  }

  // refresh(): the least any implementation must do to keep the list in expiry order (take
  // the timer out, stamp it, put it behind the others), and no more (no cleared or fired
  // check, no driver re-arm: the server rows' timers are all pending).
  Timeout.prototype.refresh = function refresh() {
    const prev = this._idlePrev, next = this._idleNext;
    prev._idleNext = next;
    next._idlePrev = prev;
    start(this);
    return this;
  };

  /* stamp `timer` with the time of the call (or the shared reading) and link it at the tail */
  function start(timer) {
    timer._idleStart = stampNow();
    link(timer);
  }

  /* take a pending `timer` out of the list */
  function unlink(timer) {
    const prev = timer._idlePrev, next = timer._idleNext;
    prev._idleNext = next;
    next._idlePrev = prev;
    timer._idlePrev = null;
    timer._idleNext = null;
  }

  /* put `timer` at the list's tail */
  function link(timer) {
    const last = list._idlePrev;
    timer._idlePrev = last;
    timer._idleNext = list;
    last._idleNext = timer;
    list._idlePrev = timer;
  }

  function runTimeouts() {
    timeoutDriver = null;
    draining = true;
    const t = now = clockNow();
    let owed = false;
    for (;;) {
      const timer = list._idleNext;
      if (timer === list || timer._idleStart + timer._idleTimeout > t || timer._idleStart >= t) break;
      if (owed) {
        owed = false;
        tick();
        continue;
      }
      unlink(timer);
      if (timer._repeat === null) {
        timer._destroyed = true;
        timer._onTimeout();
        timer._onTimeout = null;
      } else {
        // as Node: the next period counts from the callback's start
        const started = exactStart ? clockNow() : t;
        timer._onTimeout();
        if (timer._onTimeout !== null) {
          timer._idleStart = started;
          link(timer);
        }
      }
      owed = true;
    }
    draining = false;
    now = -1;
    const first = list._idleNext;
    if (first !== list) {
      // from the time now, which the native timer counts from (the drain's reading may be a
      // millisecond or more old by now)
      timeoutDriver = nativeSetTimeout(runTimeouts, Math.max(1, first._idleStart + first._idleTimeout - clockNow()));
    }
  }

  return {
    setImmediate: floorSetImmediate, setTimeout: floorSetTimeout,
    setInterval: floorSetInterval, clearTimeout: floorClearTimeout,
  };
}

/* a floor over the global setImmediate, setTimeout, setInterval, clearTimeout and clearInterval (install.js, exact-install.js) */
function install(exactStart) {
  const floor = makeFloor(true, exactStart);
  globalThis.setImmediate = floor.setImmediate;
  globalThis.setTimeout = floor.setTimeout;
  globalThis.setInterval = floor.setInterval;
  globalThis.clearTimeout = floor.clearTimeout;
  globalThis.clearInterval = floor.clearTimeout;
}

module.exports = { makeFloor, install };
