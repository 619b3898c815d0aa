/*
 * immediate-listing: what the pending immediates are, read for stats.js and executionAsyncResource().
 *
 * Owns visiting every pending immediate in the order they run (forEachPending), the queue's and
 * the drivers' state (snapshot), and which immediate's callback runs inside a driver
 * (executionResource).  It reads immediates.js through held() and runningSlotOf(); immediates.js
 * imports nothing of it.
 * It must never change an immediate, the queue or a driver, never read a clock, and never call
 * user code other than the `visit` it is given.
 */
'use strict';

const immediates = require('./immediates');
const ImmediateQueue = require('./immediate-queue');
const natives = require('./natives');
const { REFED, DESTROYED } = require('./flags');

const CLEARED_CALLBACK = natives.clearedCallback;
const SEGMENT_MASK = ImmediateQueue.SEGMENT_SIZE - 1;

/* a carrier is queued and its immediate was not cleared (one not kept there never was) */
function carriedPending(h) {
  return h.carrierQueued && (h.carried === null || !(h.carried._flags & DESTROYED));
}

/*
 * visit(imm) for every pending immediate, in the order they run: a carried one first, then the
 * queue, read from its segments in place (ImmediateQueue has no iterator, and its push/shift
 * path must stay as it is), skipping the cancelled entries it still holds.  A carried immediate
 * not kept by immediates.js is visited as what it is while not kept: referenced, with its callback.
 */
function forEachPending(visit) {
  const h = immediates.held();
  if (carriedPending(h)) visit(h.carried !== null ? h.carried : { _flags: REFED, _onImmediate: h.carriedCallback });
  for (let seg = h.queue.head; seg !== null; seg = seg.next) {
    for (let k = 0; k < seg.count; k++) {
      const imm = seg.slots[(seg.bottom + k) & SEGMENT_MASK];
      if (!(imm._flags & DESTROYED)) visit(imm);
    }
  }
}

/* the queue's and the drivers' state now, for stats.js */
function snapshot() {
  const h = immediates.held();
  const carrying = carriedPending(h);
  return {
    // cancelled entries not yet shifted included, a cancelled carried one not
    queued: h.queue.length + (carrying ? 1 : 0),
    refed: h.refedCount,
    refedRunning: h.runningRefed,     // counted in `refed`, but running (Node no longer counts it)
    driverQueued: h.drivers > 0 || h.carrierQueued,
    // how many native drivers Node counts as referenced
    driversRefed: h.driverRefed ? h.drivers + (h.carrierQueued ? 1 : 0) : 0,
  };
}

/*
 * the immediate whose callback runs, when `resource` (what Node's executionAsyncResource()
 * answers) is the native driver running it; null otherwise
 */
function executionResource(resource) {
  const slot = immediates.runningSlotOf(resource);
  if (slot === undefined) return null;
  // the last one started, while its callback runs: destroyed and its callback not yet released
  const imm = slot[0];
  return imm !== undefined && (imm._flags & DESTROYED) !== 0 && imm._onImmediate !== CLEARED_CALLBACK ? imm : null;
}

module.exports = { forEachPending, snapshot, executionResource };
