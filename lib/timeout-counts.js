/*
 * timeout-counts: what is counted of timeouts for stats(): callbacks that threw, wakeups of the
 * native driver, and (lateness.js) how late each callback started, coarse ones apart.
 *
 * Owns the tally and its reading and reset.  timeout-drain.js adds to it inline, as it files
 * lateness; how many callbacks started, a throwing one included, is the lateness histogram's count.
 * Counts live in a Float64Array, not in variables, as lateness.js's do (why: there).
 * It must never import anything but lateness.js, read a clock, or allocate when counting.
 */
'use strict';

const lateness = require('./lateness');

const THREW = 0;                  // callbacks that threw
const DRAINS = 1;                 // wakeups of the native driver
const tally = new Float64Array(2);

/* what was counted since load or the last resetCounts(), for stats.js (the histogram copied) */
function counts() {
  const late = lateness.read();
  return {
    ran: late.filed,
    threw: tally[THREW],
    drains: tally[DRAINS],
    lateness: late.buckets,
    latenessSum: late.sum,
    latenessMax: late.max,
  };
}

function resetCounts() {
  tally.fill(0);
  lateness.reset();
}

// Coarse timeouts' lateness (coarse.js), filed apart from their own expiry (start + delay), not
// from their list's key: the drain runs them from the list of delay 0.
const coarseLateness = lateness.newHistogram();

/* a coarse timer's callback starts at `stamp`: how late beyond its own due time */
function fileCoarse(stamp, timer) {
  lateness.file(coarseLateness, stamp - (timer._idleStart + Math.trunc(timer._idleTimeout)));
}

/* coarse timeouts' lateness since load or the last resetCoarseCounts(), for stats.js */
function coarseCounts() {
  const late = lateness.read(coarseLateness);
  return { ran: late.filed, lateness: late.buckets, latenessSum: late.sum, latenessMax: late.max };
}

function resetCoarseCounts() {
  lateness.reset(coarseLateness);
}

module.exports = { THREW, DRAINS, tally, counts, resetCounts, fileCoarse, coarseCounts, resetCoarseCounts };
