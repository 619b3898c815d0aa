/*
 * refresh-batch: the pending timeouts' store, behind the moves refresh() owes it.
 *
 * Owns the one TimeoutStore of pending timeouts and the batch of moves refresh() noted for
 * timers in a ring (timeout-store.js): the call stamps the timer's new start at once and notes
 * the timer and its delay here; the moves are made together, in call order, so each list ends
 * in the order of the calls, as if every call had moved its timer (a timer cleared in between
 * is unlinked, and its move skipped).  settled() is the one door to the store: it makes the
 * moves owed first, so nothing (an add, a linked timer's move, a drain's step, a listing, the
 * section's end) can see a timer where it no longer waits.  Why in batches:
 * docs/decisions.md, "refresh() reads the clock first; a ring's moves are made in batches".
 * It must never call user code, read the clock, or hand out the store with moves still owed
 * (unlink() alone skips them: a move of an unlinked timer is dropped anyway).
 */
'use strict';

// qtimers' own code from here to the end() at the bottom (own-frames.js)
const ownFrom = require('./own-frames').begin();

const { TimeoutStore } = require('./timeout-store');
const { wantDriverBy } = require('./timeout-driver');
const { needsEnd } = require('./section');

// Moves noted before the batch is worked through anyway: bounds what a long synchronous loop of
// refresh() calls holds (two array slots each) and keeps a batch inside the CPU's caches.
const REFRESH_BATCH = 1024;

const store = new TimeoutStore();
const batchTimers = [];
const batchDelays = [];
for (let i = 0; i < REFRESH_BATCH; i++) {
  batchTimers.push(null);   // packed, never holey
  batchDelays.push(0);      // packed small integers, as delays are
}
let batched = 0;              // moves noted
let moved = 0;                // of those, made (below batched only while moveRefreshed runs)

/* make the moves noted, in call order; a timer cleared since is no longer pending: skipped */
function moveRefreshed() {
  // `moved` is the module's, not a local: if arming the driver reaches user code (an async
  // hook) that refreshes or adds a timer, the nested call goes on from the next move, and
  // every move is made once, in order
  while (moved < batched) {
    const i = moved++;
    const timer = batchTimers[i];
    batchTimers[i] = null;
    if (timer._idlePrev === null) continue;
    const msecs = batchDelays[i];
    if (store.requeueInRing(timer, msecs)) continue;
    // its delay was changed: to another list, which may expire first
    const start = timer._idleStart;
    store.restart(timer, start, msecs);
    wantDriverBy(start + msecs);
  }
  batched = 0;
  moved = 0;
}

/* the store, every move owed to it made */
function settled() {
  if (batched !== 0) moveRefreshed();
  return store;
}

/* note the move of `timer`, in a ring and stamped with its new start, behind `msecs`'s others */
function noteMove(timer, msecs) {
  let n = batched;
  if (n === REFRESH_BATCH) {
    moveRefreshed();
    n = batched;
  }
  batchTimers[n] = timer;
  batchDelays[n] = msecs;
  batched = n + 1;
  if (n === 0) needsEnd();      // made by the section's end at the latest (settleAtEnd)
}

/* at the end of a section: the moves owed are made (they may want the driver earlier) */
function settleAtEnd() {
  settled();
}

/* unlink a pending timer: where it waits is not read, so owed moves need not be made first */
function unlink(timer) {
  store.unlink(timer);
}

module.exports = { settled, noteMove, settleAtEnd, unlink };

require('./own-frames').end(ownFrom);
