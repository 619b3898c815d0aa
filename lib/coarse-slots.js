/*
 * CoarseSlots: where settled coarse timeouts wait, grouped by the time their slot fires.
 *
 * Owns the data structure only.  A slot is one fire time shared by many timers: a circular
 * doubly linked list through the timers' own _idlePrev/_idleNext (its sentinel is the slot), so a
 * timer costs no memory beyond its own fields and leaves its slot in O(1) from anywhere.  The
 * slots are found by time in a Map, and the earliest by a binary min-heap of their times.  A slot
 * emptied by clears leaves the Map at once; its time stays in the heap until it is due, and is
 * then skipped (or serves a slot made again for the same time).
 * Invariant: a timer in a slot has neighbours that are timers of the same slot or the slot
 * itself; prev === next only when that is the slot, with the timer alone in it.
 * It must never import anything but timeout-list.js (whose linked-list append it shares), read a
 * clock, call user code or look at a timer's other fields.
 */
'use strict';

// a TimeoutList's append, which reads and writes only the sentinel's and the timer's links
const linkLast = require('./timeout-list').TimeoutList.prototype.link;

class Slot {
  constructor(time) {
    this._idlePrev = this;
    this._idleNext = this;
    this.time = time;
  }
}

class CoarseSlots {
  constructor() {
    this.byTime = new Map();    // fire time -> Slot
    this.times = [];            // min-heap of fire times (a time may be stale: its slot gone)
    this.last = null;           // the slot added to last while in the Map: a settle's timers share one
  }

  /* the earliest fire time in the heap (perhaps of an emptied slot), Infinity if none */
  firstTime() {
    return this.times.length === 0 ? Infinity : this.times[0];
  }

  /* append `timer` to the slot firing at `time` */
  add(timer, time) {
    let slot = this.last;
    if (slot === null || slot.time !== time) {
      slot = this.byTime.get(time);
      if (slot === undefined) {
        slot = new Slot(time);
        this.byTime.set(time, slot);
        heapPush(this.times, time);
      }
      this.last = slot;
    }
    linkLast.call(slot, timer);
  }

  /* `slot` leaves the Map */
  remove(slot) {
    this.byTime.delete(slot.time);
    if (slot === this.last) this.last = null;
  }

  /* take `timer` out of its slot; an emptied slot leaves the Map */
  unlink(timer) {
    const prev = timer._idlePrev;
    const next = timer._idleNext;
    prev._idleNext = next;
    next._idlePrev = prev;
    timer._idlePrev = null;
    timer._idleNext = null;
    if (prev === next) this.remove(prev);
  }

  /* the first timer of the earliest slot due by `now`, the slot taken out whole (its timers
     still chained to each other, the last one's _idleNext the slot); null if none is due */
  takeDue(now) {
    const times = this.times;
    while (times.length !== 0 && times[0] <= now) {
      const time = heapPop(times);
      const slot = this.byTime.get(time);
      if (slot === undefined) continue;
      this.remove(slot);
      if (slot._idleNext !== slot) return slot;
    }
    return null;
  }

  /* visit(timer) for every timer in a slot */
  forEach(visit) {
    for (const slot of this.byTime.values()) {
      for (let timer = slot._idleNext; timer !== slot; timer = timer._idleNext) visit(timer);
    }
  }
}

function heapPush(heap, value) {
  let i = heap.length;
  heap.push(value);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent] <= value) break;
    heap[i] = heap[parent];
    i = parent;
  }
  heap[i] = value;
}

function heapPop(heap) {
  const top = heap[0];
  const last = heap.pop();
  const n = heap.length;
  if (n === 0) return top;
  let i = 0;
  for (;;) {
    let child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && heap[child + 1] < heap[child]) child += 1;
    if (heap[child] >= last) break;
    heap[i] = heap[child];
    i = child;
  }
  heap[i] = last;
  return top;
}

module.exports = { CoarseSlots, Slot };
