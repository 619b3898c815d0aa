/*
 * bounds/ttl-free: the TTL cache with entry timers that cost nothing (preloaded: `node -r`).
 *
 * Every setTimeout of 2 ms or more (lru-cache's one per stored entry, ttl + 1 ms) returns one
 * shared object and never fires; lru-cache's 1 ms timer that lets its cached clock go stays
 * Node's.  No timers library can make the entry timers cheaper, so operations per CPU-second
 * here, against native's, is the most any library could win on them (bounds.js measures it).
 * The work differs in one way that flatters the bound: stale entries are never purged by their
 * timer (lru-cache still drops them on a later get, and evicts beyond its max), work that no
 * timers library saves; ttl-fire.js runs the purges and is the tighter bound.
 * It must never be used for anything but that measurement.
 */
'use strict';

const nativeSetTimeout = global.setTimeout;
const nothing = require('./nothing');

global.setTimeout = function setTimeout(callback, delay, ...args) {
  return delay >= 2 ? nothing : nativeSetTimeout(callback, delay, ...args);
};
