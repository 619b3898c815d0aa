/*
 * clock: the scheduling time, in whole milliseconds of libuv's own loop clock.
 *
 * Owns reading the monotonic clock.  now() reads it every time: a timer is stamped with the
 * time of the call that armed it, as Node stamps it, so it can never fire early however long
 * the program ran before that call (a cached reading would be stale by exactly that long, and
 * no program can reason about that).  A read costs 45-55 ns here (Node 18-26, process.hrtime's
 * array form: the C++ boundary, not the clock), about what a native setTimeout spends on the
 * same read.
 * preciseNow() is the same clock on the same scale with the fraction of a millisecond kept, for
 * the immediates' turn, whose bound is a fraction of a millisecond (immediates.js).
 * sectionNow() is the opt-in approximation (setTimeout.exactStart = false): one reading shared
 * by one synchronous section of the program (ended through section.js) and, inside a qtimers
 * drain, by at most CALLBACKS_PER_READING callbacks (callbackRan() counts them).  Timers armed
 * late in a long section are then stamped early by however long the section has run, which is
 * what the knob risks.
 * It must never read the wall clock for scheduling (Date.now jumps), never be written from
 * outside except through its functions, and never reference the global `process` after load
 * (programs may replace it).
 */
'use strict';

const natives = require('./natives');
const section = require('./section');

// process.hrtime() reads CLOCK_MONOTONIC (uv_hrtime), which is also the clock of libuv's
// loop time wherever the kernel's coarse monotonic clock ticks less than once a millisecond
// (CONFIG_HZ below 1000): there whole milliseconds of both tick at the same instants, and "armed
// for N ms" and "N ms have passed" agree.  With HZ=1000 libuv reads CLOCK_MONOTONIC_COARSE
// instead, which lags this one by up to a tick: as many wakeups per timer as native there too
// (docs/decisions.md, "the clock follows libuv's loop clock").  Its [seconds, nanoseconds] form,
// not hrtime.bigint(): a BigInt is one more allocation and a runtime call to make it a Number
// (docs/decisions.md, "the clock is read through process.hrtime()'s array").
const hrtime = natives.hrtime;
const NS_PER_MS = 1e6;
const MS_PER_S = 1000;

// With exactStart = false, how many callbacks of one drain share a reading: what 16 callbacks
// take bounds how stale it gets inside a drain (a clock read per callback would double the cost
// of a drain of a thousand callbacks that each re-arm a timer).
const CALLBACKS_PER_READING = 16;

// Counted from load (its second, and its millisecond within it), so values stay small integers
// (V8 Smis) for the first 24 days of a process.
const base = hrtime();
const baseSeconds = base[0];
const baseMs = Math.floor(base[1] / NS_PER_MS);

/*
 * the scheduling time of the reading `t` of hrtime(), in ms: the whole ms of the monotonic
 * clock, exactly.  The sum is a whole number held as a double (hrtime's seconds are one: Node
 * computes them with 2 ** 32); Math.floor of it gives V8 the small integer back, so a timer's
 * _idleStart field stays a Smi field, not a box of its own per timer.
 */
function msOf(t) {
  return Math.floor((t[0] - baseSeconds) * MS_PER_S + Math.floor(t[1] / NS_PER_MS) - baseMs);
}

/*
 * the scheduling time now, in ms.  A hot loop that must not allocate calls msOf(hrtime())
 * itself: V8 removes the reading's array only where it inlines Node's hrtime() wrapper, and a
 * call made at the loop's own level gets its turn of the loop's inlining budget before the
 * calls nested in what the loop inlines (docs/decisions.md, "an interval's start is read at the
 * drain's own level").
 */
function now() {
  return msOf(hrtime());
}

/* the scheduling time now, in ms with their fraction: now() is its whole part */
function preciseNow() {
  const t = hrtime();
  return (t[0] - baseSeconds) * MS_PER_S + t[1] / NS_PER_MS - baseMs;
}

// epoch milliseconds = scheduling time + epochOffset, measured once against the wall clock:
// Date.now() read between two preciseNow() reads, the closest pair of up to PAIR_TRIES, done once
// one is under PAIR_GAP_MS apart (a pair is normally a microsecond apart; a process preempted
// between two reads would keep the pause in every timestamp after).  Both sides are whole ms,
// so the result stays within 1 ms of Date.now() for as long as the wall clock is not stepped;
// after a step it keeps counting steadily, as a scheduling timestamp should (and a replaced or
// faked Date.now cannot move it).
const PAIR_TRIES = 20;
const PAIR_GAP_MS = 0.05;
function measureEpochOffset() {
  let gap = Infinity;
  let offset = 0;
  for (let i = 0; i < PAIR_TRIES && gap > PAIR_GAP_MS; i++) {
    const before = preciseNow();
    const wall = natives.dateNow();
    const after = preciseNow();
    if (after - before < gap) {
      gap = after - before;
      offset = wall - Math.floor(before);
    }
  }
  return offset;
}
const epochOffset = measureEpochOffset();

/* the time now as epoch milliseconds */
function epochNow() {
  return now() + epochOffset;
}

// ---------------------------------------------------------------- the opt-in shared reading

let sharedReading = 0;
let sharedValid = false;
let callbacksLeft = CALLBACKS_PER_READING;   // callbacks that may still share the reading

/* a reading shared by the current synchronous section (exactStart = false) */
function sectionNow() {
  if (sharedValid) return sharedReading;
  const t = now();
  sharedReading = t;
  sharedValid = true;
  callbacksLeft = CALLBACKS_PER_READING;
  section.needsEnd();
  return t;
}

/* a drain ran one callback: the shared reading serves at most CALLBACKS_PER_READING of them */
function callbackRan() {
  if (sharedValid && --callbacksLeft === 0) sharedValid = false;
}

section.atEnd(function endSharedReading() {
  sharedValid = false;
});

module.exports = {
  hrtime,
  msOf,
  now,
  preciseNow,
  epochNow,
  sectionNow,
  callbackRan,
};
