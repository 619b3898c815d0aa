/*
 * bounds/ttl-fire: the TTL cache with entry timers that do only what a timer that fires must
 * (preloaded: `node -r`): read the clock, keep the callback until it is due, and call it then.
 *
 * Every setTimeout of 2 ms or more (lru-cache's one per stored entry, ttl + 1 ms, never
 * cleared) reads the clock as Node does (process.hrtime.bigint(), whole ms), pushes its
 * callback onto the bucket of the millisecond it is due in (a ring of BUCKETS arrays, one per
 * millisecond, so delays must stay under BUCKETS ms), and returns one shared handle that does
 * nothing (nothing.js).  One native 1 ms interval, unref'd, calls each bucket's callbacks once
 * its millisecond has passed, in the order they were pushed.  No handle, no list to keep in
 * order, no clearing, ref counting, ids or async context: any timers library that runs the
 * purges lru-cache arms does at least this, so operations per CPU-second here, against
 * native's, bound what such a library could win (bounds.js measures it; ttl-free.js, which
 * never runs the purges, bounds it from further off).  lru-cache's 1 ms timer that lets its
 * cached clock go stays Node's.
 * It must never be used for anything but that measurement, or with delays of BUCKETS ms or more.
 */
'use strict';

const nativeSetTimeout = global.setTimeout;
const nativeSetInterval = global.setInterval;
const nothing = require('./nothing');
const hrtimeBigint = process.hrtime.bigint;
const NS_PER_MS = BigInt(1e6);

// a millisecond's bucket per slot: lru-cache's delays here (ttl + 1 ms) stay far below this
const BUCKETS = 4096;
const buckets = [];
for (let i = 0; i < BUCKETS; i++) buckets.push([]);

function nowMs() {
  return Number(hrtimeBigint() / NS_PER_MS);
}

let ranThrough = nowMs();     // every bucket due at or before this ms has run

function runDue() {
  const now = nowMs();
  // due strictly before now: a timer armed during ms t for d ms runs once t + d has passed
  while (ranThrough < now - 1) {
    ranThrough += 1;
    const slot = ranThrough % BUCKETS;
    const bucket = buckets[slot];
    if (bucket.length === 0) continue;
    buckets[slot] = [];
    for (let i = 0; i < bucket.length; i++) bucket[i]();
  }
}

nativeSetInterval(runDue, 1).unref();

// lru-cache passes its callbacks no arguments: none are taken, so no call makes an array
global.setTimeout = function setTimeout(callback, delay) {
  if (delay < 2) return nativeSetTimeout(callback, delay);
  buckets[(nowMs() + Math.ceil(delay)) % BUCKETS].push(callback);
  return nothing;
};
