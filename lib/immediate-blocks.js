/*
 * ImmediateBlocks: which pending native driver runs which of the queued immediates.
 *
 * Owns storage only: a FIFO of blocks, one per pending main driver (a native Immediate qtimers
 * queued), each the driver, the async context it was made in and how many entries of the
 * immediate queue it owns.  Node runs its immediates in the order of one list, and a qtimers
 * immediate must run where Node would have put it: so an immediate joins the newest block only
 * while that block's driver is still the last of Node's list, else it starts a block of its own
 * with a driver queued now (immediates.js decides which).  The queue's entries are in block
 * order; those at its front that no block owns belong to the turn that is running:
 *
 *     Node's list:   D1   M   D2               (M: a native immediate queued between)
 *     queue:         [ run | B C | E ]         blocks: (D1, 2) (D2, 1)      owned(): 3
 *
 * The newest block is the hot one (every immediate joins it or starts one): its driver and
 * count are plain fields, `newest` and `newestCount`; the arrays hold the older blocks' counts.
 * It must never look at the drivers or the entries (they are the caller's business), never
 * import anything, and never allocate but when more blocks are pending at once than ever before.
 */
'use strict';

class ImmediateBlocks {
  constructor() {
    this.drivers = [];     // the pending drivers, oldest at `head`
    this.contexts = [];    // the async context each was made in, or null
    this.counts = [];      // how many queue entries each owns (the newest's: newestCount)
    this.head = 0;
    this.length = 0;       // pending blocks
    this.newest = null;    // the newest block's driver, or null when there is no block
    this.newestCount = 0;
    this.olderOwned = 0;   // queue entries owned by the blocks before the newest
  }

  /* queue entries owned by the pending blocks, in all */
  owned() {
    return this.olderOwned + this.newestCount;
  }

  /* a block for `driver`, made in `context`, owning the next `count` entries pushed */
  push(driver, context, count) {
    if (this.length > 0) {
      this.counts[this.head + this.length - 1] = this.newestCount;
      this.olderOwned += this.newestCount;
    }
    const i = this.head + this.length;
    this.drivers[i] = driver;
    this.contexts[i] = context;
    this.counts[i] = 0;
    this.length += 1;
    this.newest = driver;
    this.newestCount = count;
  }

  /* the newest block owns one more entry (call only when there is one) */
  grow() {
    this.newestCount += 1;
  }

  /* the newest block owns one entry fewer; false, and no change, if there is none or it owns none */
  shrink() {
    if (this.newestCount === 0) return false;
    this.newestCount -= 1;
    return true;
  }

  /* the oldest block owns n more entries (those before it that a turn left) */
  addToOldest(n) {
    if (this.length === 1) this.newestCount += n;
    else {
      this.counts[this.head] += n;
      this.olderOwned += n;
    }
  }

  /* whether `driver` is the oldest block's, the next to run */
  isOldest(driver) {
    return this.length > 0 && this.drivers[this.head] === driver;
  }

  /* the oldest block's context (call only when there is one) */
  oldestContext() {
    return this.contexts[this.head];
  }

  /* removes the oldest block; returns how many entries it owned, now the running turn's */
  shift() {
    const i = this.head;
    let count;
    if (this.length === 1) {
      count = this.newestCount;
      this.newest = null;
      this.newestCount = 0;
    } else {
      count = this.counts[i];
      this.olderOwned -= count;
    }
    this.drivers[i] = undefined;
    this.contexts[i] = undefined;
    this.length -= 1;
    this.head = this.length === 0 ? 0 : i + 1;   // the arrays keep their room for the next block
    return count;
  }

  /* visit(driver) for every pending driver, oldest first */
  forEachDriver(visit) {
    for (let i = this.head; i < this.head + this.length; i++) visit(this.drivers[i]);
  }
}

module.exports = ImmediateBlocks;
