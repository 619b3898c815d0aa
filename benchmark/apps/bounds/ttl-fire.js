/*
 * bounds/ttl-fire: the TTL cache with entry timers that do only what a timer that fires must
 * (preloaded: `node -r`): read the clock, keep the callback until it is due, and call it then.
 *
 * Every setTimeout of 2 ms or more (lru-cache's one per stored entry, ttl + 1 ms, never
 * cleared) reads the clock as Node does, pushes its callback onto the bucket of the millisecond
 * it is due in, and returns one shared handle that does nothing (ttl-buckets.js, which a native
 * 1 ms interval runs).  No handle, no list to keep in
 * order, no clearing, ref counting, ids or async context: any timers library that runs the
 * purges lru-cache arms does at least this, so operations per CPU-second here, against
 * native's, bound what such a library could win (bounds.js measures it; ttl-free.js, which
 * never runs the purges, bounds it from further off).  lru-cache's 1 ms timer that lets its
 * cached clock go stays Node's.
 * It must never be used for anything but that measurement.
 */
'use strict';

require('./ttl-buckets').install({ handles: false });
