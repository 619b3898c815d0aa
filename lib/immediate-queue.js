/*
 * ImmediateQueue: the FIFO that holds pending setImmediate handles.
 *
 * Owns storage only: fixed-size ring segments linked into a chain, the shape of Node's own
 * nextTick queue.  Pushing never copies the queue (a full segment links a fresh one), shifting
 * is an index bump, and a segment drained empty is kept as a spare only while there are fewer
 * than MAX_SPARES, so a program that queues batches of thousands every turn does not allocate
 * (and collect) 8 KiB arrays every turn, and one that queued a million once gives the memory
 * back.  pop() takes back the newest entry, which is how a setImmediate cancelled right after it
 * was made costs no queue space at all; a segment that pop() empties is given up at once, so
 * last() is the newest entry wherever the segment boundaries fall.
 * It must never look inside the entries (cancelled entries are the caller's business) and never
 * allocate on the push/shift fast path.
 */
'use strict';

// 1024 slots = 8 KiB per segment: large enough that segment changes are rare, small enough that
// an idle queue holds little memory.  Must be a power of two (indexes wrap with a mask).
const SEGMENT_SIZE = 1024;
const MASK = SEGMENT_SIZE - 1;
// Spare segments kept for reuse: 16 x 8 KiB covers batches of 16k entries with no allocation.
const MAX_SPARES = 16;

class RingSegment {
  constructor() {
    this.slots = new Array(SEGMENT_SIZE).fill(undefined);
    this.bottom = 0;      // index of the oldest entry
    this.top = 0;         // index one past the newest entry
    this.count = 0;
    this.next = null;     // the segment holding newer entries
    this.prev = null;     // the segment holding older entries (pop() steps back to it)
  }
}

class ImmediateQueue {
  constructor() {
    this.head = new RingSegment();   // oldest entries are shifted from here
    this.tail = this.head;           // new entries are pushed here
    this.length = 0;
    this.spares = null;     // drained segments kept for reuse, linked through .next
    this.spareCount = 0;
  }

  push(item) {
    let seg = this.tail;
    if (seg.count === SEGMENT_SIZE) seg = this._grow();
    seg.slots[seg.top] = item;
    seg.top = (seg.top + 1) & MASK;
    seg.count += 1;
    this.length += 1;
  }

  shift() {
    if (this.length === 0) return undefined;
    let seg = this.head;
    // the head segment was shifted empty while a newer one holds the entries
    if (seg.count === 0) seg = this._advance();
    const item = seg.slots[seg.bottom];
    seg.slots[seg.bottom] = undefined;
    seg.bottom = (seg.bottom + 1) & MASK;
    seg.count -= 1;
    this.length -= 1;
    return item;
  }

  /* the newest entry, or undefined when the queue is empty */
  last() {
    const seg = this.tail;
    return seg.count === 0 ? undefined : seg.slots[(seg.top - 1) & MASK];
  }

  /* remove the newest entry (the caller checked last()) */
  pop() {
    const seg = this.tail;
    if (seg.count === 0) return;
    seg.top = (seg.top - 1) & MASK;
    seg.slots[seg.top] = undefined;
    seg.count -= 1;
    this.length -= 1;
    // emptied, with older entries before it: the newest entry is now the previous segment's
    if (seg.count === 0 && seg.prev !== null) this._retreat();
  }

  _grow() {
    let seg = this.spares;
    if (seg === null) {
      seg = new RingSegment();
    } else {
      this.spares = seg.next;
      this.spareCount -= 1;
      seg.next = null;
    }
    seg.prev = this.tail;
    this.tail.next = seg;
    this.tail = seg;
    return seg;
  }

  // the tail segment was popped empty: the previous one is the tail again, the empty one a spare
  _retreat() {
    const old = this.tail;
    this.tail = old.prev;
    this.tail.next = null;
    this._recycle(old);
  }

  // the head segment is empty and a newer one exists: move on, keeping the old one as a spare
  _advance() {
    const old = this.head;
    const seg = old.next;
    seg.prev = null;
    this.head = seg;
    this._recycle(old);
    return seg;
  }

  // an empty segment out of the chain: kept as a spare while there are fewer than MAX_SPARES
  _recycle(seg) {
    seg.bottom = seg.top = 0;
    seg.prev = null;
    if (this.spareCount < MAX_SPARES) {
      seg.next = this.spares;
      this.spares = seg;
      this.spareCount += 1;
    } else {
      seg.next = null;
    }
  }
}

ImmediateQueue.SEGMENT_SIZE = SEGMENT_SIZE;
ImmediateQueue.MAX_SPARES = MAX_SPARES;

module.exports = ImmediateQueue;
