/*
 * bounds/ttl-buckets: the entry timers of ttl-fire.js and ttl-handle.js, a ring of BUCKETS
 * arrays, one per millisecond (so delays must stay under BUCKETS ms), run by one native 1 ms
 * interval, unref'd, that calls each bucket's entries once its millisecond has passed, in the
 * order they were pushed.  install() replaces the global setTimeout for delays of 2 ms or more:
 *
 *   { handles: false }  each call reads the clock (process.hrtime.bigint(), whole ms, as Node
 *                       does), pushes the callback and returns one shared handle (nothing.js)
 *   { handles: true }   each call makes a handle of its own (shared/timeout-shaped.js) and pushes
 *                       it, dated by the interval's last reading plus one, with no clock read
 *
 * Shorter timers (lru-cache's 1 ms timer that lets its cached clock go) stay Node's.
 * It must never be used for anything but the bounds' measurements, or with delays of BUCKETS ms
 * or more.
 */
'use strict';

const nothing = require('./nothing');
const { TimeoutShaped } = require('../../shared/timeout-shaped');

const hrtimeBigint = process.hrtime.bigint;
const NS_PER_MS = BigInt(1e6);

// a millisecond's bucket per slot: lru-cache's delays here (ttl + 1 ms) stay far below this
const BUCKETS = 4096;

function nowMs() {
  return Number(hrtimeBigint() / NS_PER_MS);
}

function install({ handles }) {
  const nativeSetTimeout = global.setTimeout;
  const buckets = [];
  for (let i = 0; i < BUCKETS; i++) buckets.push([]);
  let reading = nowMs();        // the interval's latest reading
  let ranThrough = reading;     // every bucket due at or before this ms has run

  /* the buckets due strictly before the reading: armed during ms t for d ms, run once t + d has passed */
  function runDue() {
    reading = nowMs();
    while (ranThrough < reading - 1) {
      ranThrough += 1;
      const slot = ranThrough % BUCKETS;
      const bucket = buckets[slot];
      if (bucket.length === 0) continue;
      buckets[slot] = [];
      if (handles) for (let i = 0; i < bucket.length; i++) bucket[i]._onTimeout();
      else for (let i = 0; i < bucket.length; i++) bucket[i]();
    }
  }
  global.setInterval(runDue, 1).unref();

  // lru-cache passes its callbacks no arguments: none are taken, so no call makes an array
  global.setTimeout = handles ? function setTimeout(callback, delay) {
    if (delay < 2) return nativeSetTimeout(callback, delay);
    const handle = new TimeoutShaped(callback, delay);
    buckets[(reading + 1 + Math.ceil(delay)) % BUCKETS].push(handle);
    return handle;
  } : function setTimeout(callback, delay) {
    if (delay < 2) return nativeSetTimeout(callback, delay);
    buckets[(nowMs() + Math.ceil(delay)) % BUCKETS].push(callback);
    return nothing;
  };
}

module.exports = { install };
