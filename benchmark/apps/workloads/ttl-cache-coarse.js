/*
 * ttl-cache-coarse: the TTL cache workload (ttl-cache.js) with qtimers' coarse mode on
 * (QTIMERS_COARSE=1, benchmark/coarse/apps-variant.js): lru-cache's timer per stored entry
 * (ttl + 1 ms, over a second at every size) is coarse; its 1 ms clock timer and the 1 ms
 * requests interval stay exact.  The smoke size keeps the TTL at 1 s.
 */
'use strict';

const { variant } = require('../../coarse/apps-variant');

module.exports = variant(require('./ttl-cache'), (size) => size.ttlMs + 1,
  { opsPerSecond: 50000, ttlMs: 1000, warmupMs: 1100, windowMs: 300 });
