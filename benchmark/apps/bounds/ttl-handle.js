/*
 * bounds/ttl-handle: the TTL cache with entry timers that do only what a coarse timer with a
 * handle of its own must (preloaded: `node -r`): make a handle per timer, keep it until due, and
 * call its callback then, reading no clock when armed.
 *
 * As ttl-fire.js, but every setTimeout of 2 ms or more returns a handle of its own, with as many
 * fields as Node's Timeout (what any library behind Node's API returns, and what lru-cache keeps
 * until it fires), pushed onto the bucket of the millisecond it is due in (ttl-buckets.js); and
 * the millisecond it is armed in is the last reading of the 1 ms interval that runs the buckets,
 * plus one, not a clock read per call.  After a stall its timers may run early by the stall: it
 * bounds the cost, it is not a timer (coarse.js pays one more touch per timer to settle them with
 * a later reading).  So operations per CPU-second here, against native's, bound what a coarse
 * mode could win on this workload (bounds.js measures it).
 * It must never be used for anything but that measurement.
 */
'use strict';

require('./ttl-buckets').install({ handles: true });
