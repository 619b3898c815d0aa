/*
 * lateness: the histogram of how late timeout callbacks started (ms from a timer's expiry to its
 * callback's start, whole milliseconds), for stats().
 *
 * Owns the buckets and the maths between a lateness and its bucket: bucket i < EXACT_BUCKETS holds
 * exactly i ms; above, each power of two is cut into SUB_BUCKETS, so a bucket is at most 1/8 of
 * its values wide (up to 2^31 ms: 240 buckets).  Also the sum and the largest of the values past
 * the exact buckets (`wide`): an exact bucket's values are all its own number of ms, so read()
 * adds their sum and largest from the counts, and filing the common lateness (a few ms) is one
 * element's increment.
 * One histogram for exact timeouts (`timeouts`), which timeout-drain.js files each callback
 * into inline (others, newHistogram(), are filed with file()):
 *   if (late < EXACT_BUCKETS) timeouts.buckets[late] += 1; else fileWide(timeouts, late);
 * Counts live in Float64Arrays, not variables: a variable past 2^30 would turn from a small
 * integer into a boxed double, allocated anew at every increment; an array element is a double
 * in place from the start, exact to 2^53.
 * It must never import anything, read a clock, or allocate when a value is filed.
 */
'use strict';

const EXACT_BUCKETS = 16;
const SUB_BITS = 3;
const SUB_BUCKETS = 1 << SUB_BITS;
const BUCKETS = EXACT_BUCKETS + (31 - 4) * SUB_BUCKETS + SUB_BUCKETS;

/* a histogram of its own: the buckets, and the sum and the largest of the wide values (ms) */
function newHistogram() {
  return { buckets: new Float64Array(BUCKETS), total: new Float64Array(1), largest: new Float64Array(1) };
}

// exact timeouts' histogram, whose arrays timeout-drain.js files into inline
const timeouts = newHistogram();

/* the bucket of a lateness of `ms` (the drain itself files those below EXACT_BUCKETS) */
function latenessBucket(ms) {
  if (ms < EXACT_BUCKETS) return ms;
  if (ms >= 2 ** 31) return BUCKETS - 1;
  const exponent = 31 - Math.clz32(ms);    // >= 4
  return EXACT_BUCKETS + (exponent - 4) * SUB_BUCKETS + ((ms >>> (exponent - SUB_BITS)) & (SUB_BUCKETS - 1));
}

/* the smallest and the largest lateness that bucket `i` holds */
function bucketLow(i) {
  if (i < EXACT_BUCKETS) return i;
  const exponent = 4 + ((i - EXACT_BUCKETS) >> SUB_BITS);
  return (SUB_BUCKETS + ((i - EXACT_BUCKETS) & (SUB_BUCKETS - 1))) * 2 ** (exponent - SUB_BITS);
}

function bucketHigh(i) {
  if (i < EXACT_BUCKETS) return i;
  const exponent = 4 + ((i - EXACT_BUCKETS) >> SUB_BITS);
  return bucketLow(i) + 2 ** (exponent - SUB_BITS) - 1;
}

/* file a lateness of `late` ms, EXACT_BUCKETS or more, into histogram `h` */
function fileWide(h, late) {
  h.buckets[latenessBucket(late)] += 1;
  h.total[0] += late;
  if (late > h.largest[0]) h.largest[0] = late;
}

/* file a lateness of `late` ms into histogram `h` (what the drain does inline for timeouts') */
function file(h, late) {
  if (late < EXACT_BUCKETS) h.buckets[late] += 1;
  else fileWide(h, late);
}

/* what was filed into `h` (timeouts' by default) since it was made or reset: how many values,
   the buckets copied, their sum and maximum (the exact buckets' from their counts) */
function read(h = timeouts) {
  const buckets = Array.from(h.buckets);
  let filed = 0;
  let exactSum = 0;
  let exactMax = 0;
  for (let i = 0; i < buckets.length; i++) {
    filed += buckets[i];
    if (i < EXACT_BUCKETS && buckets[i] > 0) {
      exactSum += i * buckets[i];
      exactMax = i;
    }
  }
  return { filed, buckets, sum: h.total[0] + exactSum, max: Math.max(h.largest[0], exactMax) };
}

function reset(h = timeouts) {
  h.buckets.fill(0);
  h.total[0] = 0;
  h.largest[0] = 0;
}

module.exports = {
  timeouts, EXACT_BUCKETS, BUCKETS,
  latenessBucket, bucketLow, bucketHigh, newHistogram, file, fileWide, read, reset,
};
