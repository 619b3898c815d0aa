/*
 * clock: the one scheduling timestamp that every qtimers operation shares.
 *
 * Owns reading the monotonic clock and caching the reading for the length of one batch: up to
 * 16 callbacks run back to back by a qtimers drain (the scheduler says when a batch ends), or
 * one synchronous section of other code (main script, I/O callback, promise job), which a
 * microtask ends.  A clock read costs more than the rest of a setTimeout, so the cache is what
 * makes a burst of timers cheap; bounding it is what keeps timers honest: a timer is stamped
 * with a time read no earlier than the start of the batch that created it.  Times are
 * whole milliseconds of libuv's own clock, so the native driver timer never wakes up a fraction
 * of a millisecond before the timer it was armed for.
 * It must never read the wall clock for scheduling (Date.now jumps), and never reference the
 * global `process` after load (programs may replace it).
 */
'use strict';

// process.hrtime.bigint() reads CLOCK_MONOTONIC (uv_hrtime), which is also the clock of libuv's
// loop time wherever the kernel's coarse monotonic clock ticks less than once a millisecond
// (CONFIG_HZ below 1000): there whole milliseconds of both tick at the same instants, and "armed
// for N ms" and "N ms have passed" agree.  With HZ=1000 libuv reads CLOCK_MONOTONIC_COARSE
// instead, which lags this one by up to a tick.  That case was measured with the loop's clock
// emulated so (1 ms chains, and timers made at random points of a millisecond): as many wakeups
// per timer as native, and late timers within the run-to-run spread of native's.
// It is also the cheapest clock to read right after the process wakes up (about half of
// performance.now()'s cost with cold caches), which is when the timeout driver reads it.
const natives = require('./natives');
const hrtimeBigint = natives.hrtimeBigint;
const NS_PER_MS = BigInt(1e6);
const queueMicrotask_ = natives.queueMicrotask;

// Counted from load, so values stay small integers (V8 Smis) for the first 24 days of a process.
const baseMs = Number(hrtimeBigint() / NS_PER_MS);

function readClock() {
  return Number(hrtimeBigint() / NS_PER_MS) - baseMs;
}

// epoch milliseconds = scheduling time + epochOffset, measured once against the wall clock.
// Both readings are whole ms, so the result stays within 1 ms of Date.now() for as long as the
// wall clock is not stepped; after a step it keeps counting steadily, as a scheduling timestamp
// should (and a replaced Date.now cannot move it).
const epochOffset = Date.now() - readClock();

const clock = {
  /* the cached scheduling time, valid while `valid` is true */
  cached: readClock(),
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
    const t = readClock();
    // monotonic by construction, but never let a cached value go backwards
    clock.cached = t > clock.cached ? t : clock.cached;
    if (!clock.valid && !clock.inBatch) queueMicrotask_(invalidate);
    clock.valid = true;
    return clock.cached;
  },

  invalidate: invalidate,

  /* the time now as epoch milliseconds, which becomes the batch's timestamp */
  epochNow: function epochNow() {
    return clock.refresh() + epochOffset;
  },
};

function invalidate() {
  clock.valid = false;
}

module.exports = clock;
