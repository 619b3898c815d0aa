/*
 * immediate-counts: what is counted of immediates for stats(): callbacks started (a throwing
 * one included), callbacks that threw, and turns of the native driver.
 *
 * Owns the tally and its reading and reset.  immediates.js's drain adds to it inline.  Counts
 * live in a Float64Array, as timeout-counts.js's: no boxed double, however long the process runs.
 * It must never import anything, read a clock, or allocate when counting.
 */
'use strict';

const RAN = 0;                    // callbacks started (a throwing one included)
const THREW = 1;                  // callbacks that threw
const DRAINS = 2;                 // turns of the native driver
const tally = new Float64Array(3);

/* what was counted since load or the last resetCounts(), for stats.js */
function counts() {
  return { ran: tally[RAN], threw: tally[THREW], drains: tally[DRAINS] };
}

function resetCounts() {
  tally.fill(0);
}

module.exports = { RAN, THREW, DRAINS, tally, counts, resetCounts };
