/*
 * clock: the one scheduling timestamp that every qtimers operation shares.
 *
 * Owns reading the monotonic clock and caching the reading for the length of one batch: one
 * callback run by qtimers, or one synchronous section of other code (main script, I/O callback,
 * promise job).  A clock read costs ~40 ns, more than the rest of a setTimeout, so the cache is
 * what makes a burst of timers cheap; bounding it to a batch is what keeps timers honest: a timer
 * is stamped with a time read within the same synchronous section that created it.  Times are
 * whole milliseconds in phase with libuv's loop clock (same epoch, same flooring), so the native
 * driver timer never wakes up a fraction of a millisecond before the timer it was armed for.
 * It must never read the wall clock for scheduling (Date.now jumps), and never reference the
 * global `process` after load (programs may replace it).
 */
'use strict';

const { performance } = require('perf_hooks');

// Bound once: performance.now checks its receiver on every call.
const perfNow = performance.now.bind(performance);
const queueMicrotask_ = globalThis.queueMicrotask;

// performance.now() counts from timeOrigin, which has a sub-millisecond phase relative to the
// hrtime clock that libuv floors into loop time.  Adding that phase back makes our floor() tick
// at the same instants as libuv's, so "armed for N ms" and "N ms have passed" agree.
const phase = (function measurePhase() {
  const hr = process.hrtime();
  const p = perfNow();
  const d = (hr[0] * 1e3 + hr[1] / 1e6) - p;
  return d - Math.floor(d);
})();

// epoch milliseconds = scheduling time + epochOffset, measured once against the wall clock
// (performance.timeOrigin can be off by a few ms).  Both readings are whole ms, so the result
// stays within 1 ms of Date.now() for as long as the wall clock is not stepped; after a step it
// keeps counting steadily, as a scheduling timestamp should.
const epochOffset = Date.now() - Math.floor(perfNow() + phase);

const clock = {
  /* the cached scheduling time, valid while `valid` is true */
  cached: Math.floor(perfNow() + phase),
  valid: false,
  /* true while qtimers runs callbacks: it invalidates the cache itself after each one */
  inBatch: false,

  now: function now() {
    return clock.valid ? clock.cached : clock.refresh();
  },

  // Read the clock and keep the reading until the current batch ends.  Outside qtimers' own
  // callback loops nobody else tells us when a synchronous section ends, so one microtask per
  // section does (it runs right after the section, before any I/O can be processed).
  refresh: function refresh() {
    const t = Math.floor(perfNow() + phase);
    // monotonic by construction, but never let a cached value go backwards
    clock.cached = t > clock.cached ? t : clock.cached;
    if (!clock.valid && !clock.inBatch) queueMicrotask_(invalidate);
    clock.valid = true;
    return clock.cached;
  },

  invalidate: invalidate,

  /* the scheduling time as epoch milliseconds, see currentTimestamp() */
  epochNow: function epochNow() {
    return clock.now() + epochOffset;
  },
};

function invalidate() {
  clock.valid = false;
}

module.exports = clock;
