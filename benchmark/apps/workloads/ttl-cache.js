/*
 * ttl-cache: a cache whose entries expire on their own: lru-cache with `ttl` and
 * `ttlAutopurge` (a setTimeout per stored entry, unref'd, that deletes the entry if it is stale
 * when it fires) and `updateAgeOnGet` (a hit pushes the entry's expiry back).
 *
 * Operations arrive at a fixed rate, in a burst every millisecond from a 1 ms setInterval that
 * stands in for the requests that would use the cache: GET_SHARE of them are gets of a key
 * drawn from KEYS (a miss stores the key, as a read-through cache does), the rest sets.  The
 * TTL is short (a benchmark cannot wait minutes), so entries expire, and their timers fire,
 * inside the window.
 * Figures: operations per CPU-second (the window's process CPU), and the heap after full
 * collections at the end of the window (--expose-gc): the cache and its pending timers.
 * It must never let the offered rate depend on the mode (see heartbeats.js).
 */
'use strict';

const { LRUCache } = require('lru-cache');
const { settledHeapMB } = require('../child');

const KEYS = 100000;
const GET_SHARE = 0.8;

module.exports = {
  title: 'TTL cache',
  describe: 'lru-cache with ttl + ttlAutopurge + updateAgeOnGet: a timer per stored entry',
  nodeArgs: ['--expose-gc'],
  metrics: [
    { key: 'opsPerCpuSecond', label: 'operations per CPU-second', unit: 'ops/cpu-s', better: 'higher' },
    { key: 'heapMB', label: 'heap at steady state', unit: 'MB', better: 'lower' },
  ],
  sizes: {
    full: { opsPerSecond: 400000, ttlMs: 1000, warmupMs: 3000, windowMs: 4000 },
    quick: { opsPerSecond: 400000, ttlMs: 1000, warmupMs: 1500, windowMs: 2000 },
    smoke: { opsPerSecond: 50000, ttlMs: 50, warmupMs: 100, windowMs: 150 },
  },
  run,
};

function run(size, meter, done) {
  const cache = new LRUCache({ max: KEYS, ttl: size.ttlMs, ttlAutopurge: true, updateAgeOnGet: true });
  const keys = [];
  for (let i = 0; i < KEYS; i++) keys.push('user:' + i);
  let seed = 4242;
  function random() {
    seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
    return (seed >>> 0) / 4294967296;
  }

  const started = process.hrtime.bigint();
  const perMs = size.opsPerSecond / 1000;
  let done_ = 0;
  let hits = 0;
  let version = 0;
  const driver = setInterval(function requests() {
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    // owed by the clock, not by the count of bursts: a late burst makes up for a stall
    const owed = Math.floor(perMs * elapsedMs) - done_;
    for (let i = 0; i < owed; i++) {
      const key = keys[Math.floor(random() * KEYS)];
      if (random() < GET_SHARE) {
        if (cache.get(key) !== undefined) hits += 1;
        else cache.set(key, { key, version: ++version });
      } else {
        cache.set(key, { key, version: ++version });
      }
    }
    done_ += owed;
    if (meter.count(owed)) {
      clearInterval(driver);
      const m = meter.result;
      done({ opsPerCpuSecond: m.units / m.cpuSeconds, heapMB: settledHeapMB() },
        { opsPerSecond: m.units / m.wallSeconds, cpuPercent: 100 * m.cpuSeconds / m.wallSeconds,
          hitRate: hits / done_, entries: cache.size });
    }
  }, 1);
}
