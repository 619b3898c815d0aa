/*
 * coarse-counts: how late coarse timeouts' callbacks started, for stats().coarse.
 *
 * Owns that histogram (lateness.js's buckets), its sum and largest value, their reading and
 * reset.  A coarse timer is filed from its own expiry (start + delay), not from its list's key:
 * the drain runs it from the list of delay 0 (coarse.js).
 * It must never import anything but lateness.js, read a clock, or allocate when filing.
 */
'use strict';

const { latenessBucket, EXACT_BUCKETS, BUCKETS } = require('./lateness');

const histogram = new Float64Array(BUCKETS);
const total = new Float64Array(1);
const largest = new Float64Array(1);

/* a coarse timer's callback starts at `stamp`: how late beyond its own due time */
function fileLateness(stamp, timer) {
  const late = stamp - (timer._idleStart + Math.trunc(timer._idleTimeout));
  histogram[late < EXACT_BUCKETS ? late : latenessBucket(late)] += 1;
  total[0] += late;
  if (late > largest[0]) largest[0] = late;
}

/* what was filed since load or the last resetCounts() (the histogram copied) */
function counts() {
  let ran = 0;
  for (let i = 0; i < histogram.length; i++) ran += histogram[i];
  return { ran, lateness: Array.from(histogram), latenessSum: total[0], latenessMax: largest[0] };
}

function resetCounts() {
  histogram.fill(0);
  total[0] = 0;
  largest[0] = 0;
}

module.exports = { fileLateness, counts, resetCounts };
