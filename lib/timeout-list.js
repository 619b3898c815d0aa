/*
 * TimeoutList and TimeoutStore: where pending timeouts wait, ordered by expiry.
 *
 * Owns the data structure only.  Every timer of one delay goes into that delay's TimeoutList,
 * a circular doubly linked list whose sentinel is the list object itself: appending is O(1) and,
 * because start times never decrease, keeps the list sorted by expiry for free; unlinking is O(1)
 * from anywhere and needs no reference to the list (a timer whose neighbours are the same object
 * was the last one, and that object is the list).  The lists sit in a binary min-heap keyed by
 * their head's expiry, ties going to the earlier start (= the earlier-created timer), so the
 * heap is touched when a list gains its first timer or its head runs, never when a timer is
 * appended to or removed from a busy list.  A key may be stale-early (its head was removed);
 * whoever reads the top re-keys it.  Empty lists are dropped lazily (set/clear loops would
 * otherwise create and destroy a list per call), with a sweep when they become the majority.
 * It must never call callbacks, read the clock or touch native timers: that is the scheduler's.
 */
'use strict';

// The sweep bound: empty lists may pile up to this many before they must also outnumber the
// live ones to trigger a sweep (a handful of idle delays costs nothing worth reclaiming).
const MIN_EMPTY_TO_SWEEP = 64;

class TimeoutList {
  constructor(msecs) {
    // sentinel links, named like the timers' so unlinking never needs to know which is which
    this._idlePrev = this;
    this._idleNext = this;
    this.msecs = msecs;
    this.expiry = 0;        // heap key: head expiry when last keyed, never later than the truth
    this.start = 0;         // tie-break: head start when last keyed
    this.heapIndex = -1;    // -1 while not in the heap
  }

  isEmpty() {
    return this._idleNext === this;
  }
}

function less(a, b) {
  return a.expiry < b.expiry || (a.expiry === b.expiry && a.start < b.start);
}

class TimeoutStore {
  constructor() {
    this.lists = new Map();     // msecs -> TimeoutList, including lazily kept empty ones
    this.heap = [];             // TimeoutLists that may hold timers, min-heap by (expiry, start)
    this.emptyLists = 0;        // lists in `lists` that hold no timer
    this.lastList = null;       // most servers use one or two delays: skip the Map for repeats
  }

  /* link `timer` (whose _idleStart is already set) at the tail of the list for `msecs` */
  append(timer, msecs) {
    let list = this.lastList;
    if (list === null || list.msecs !== msecs) list = this._listFor(msecs);
    const tail = list._idlePrev;
    if (tail === list) {
      this.emptyLists -= 1;
      // An empty list still in the heap keeps its old key: earlier than this timer's expiry,
      // which is allowed (stale-early) and costs nothing now.
      if (list.heapIndex < 0) {
        list.expiry = timer._idleStart + msecs;
        list.start = timer._idleStart;
        this._insert(list);
      }
    }
    timer._idlePrev = tail;
    timer._idleNext = list;
    tail._idleNext = timer;
    list._idlePrev = timer;
    return list;
  }

  /* unlink a linked timer from whatever list holds it */
  unlink(timer) {
    const prev = timer._idlePrev;
    const next = timer._idleNext;
    prev._idleNext = next;
    next._idlePrev = prev;
    timer._idlePrev = null;
    timer._idleNext = null;
    if (prev === next) {
      // the neighbours are the same object only when it is the list's sentinel, now alone
      this.emptyLists += 1;
      if (this.emptyLists >= MIN_EMPTY_TO_SWEEP && this.emptyLists * 2 > this.lists.size) this.sweep();
    }
  }

  /* the list whose head expires first (its key may be stale-early), or undefined */
  peek() {
    return this.heap[0];
  }

  /* re-key the top list from its actual head and restore heap order; drops it if empty */
  rekeyTop() {
    const list = this.heap[0];
    const head = list._idleNext;
    if (head === list) {
      this._removeTop();
      this._forget(list);
      return;
    }
    list.expiry = head._idleStart + list.msecs;
    list.start = head._idleStart;
    this._siftDown(0);
  }

  /* drop every empty list (from both the heap and the map), then rebuild the heap */
  sweep() {
    const heap = this.heap;
    let n = 0;
    for (let i = 0; i < heap.length; i++) {
      const list = heap[i];
      if (list._idleNext === list) {
        list.heapIndex = -1;
        this._forget(list);
      } else {
        heap[n] = list;
        list.heapIndex = n;
        n += 1;
      }
    }
    heap.length = n;
    for (const list of this.lists.values()) {
      // empty lists that had already left the heap
      if (list._idleNext === list) this._forget(list);
    }
    for (let i = (n >> 1) - 1; i >= 0; i--) this._siftDown(i);
  }

  _listFor(msecs) {
    let list = this.lists.get(msecs);
    if (list === undefined) {
      list = new TimeoutList(msecs);
      this.lists.set(msecs, list);
      this.emptyLists += 1;
    }
    this.lastList = list;
    return list;
  }

  _forget(list) {
    if (this.lists.get(list.msecs) === list) {
      this.lists.delete(list.msecs);
      this.emptyLists -= 1;
    }
    if (this.lastList === list) this.lastList = null;
  }

  _insert(list) {
    const i = this.heap.length;
    this.heap.push(list);
    list.heapIndex = i;
    this._siftUp(i);
  }

  _removeTop() {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    top.heapIndex = -1;
    if (last !== top) {
      heap[0] = last;
      last.heapIndex = 0;
      this._siftDown(0);
    }
  }

  _siftUp(i) {
    const heap = this.heap;
    const item = heap[i];
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = heap[parentIndex];
      if (!less(item, parent)) break;
      heap[i] = parent;
      parent.heapIndex = i;
      i = parentIndex;
    }
    heap[i] = item;
    item.heapIndex = i;
  }

  _siftDown(i) {
    const heap = this.heap;
    const n = heap.length;
    const item = heap[i];
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && less(heap[child + 1], heap[child])) child += 1;
      if (!less(heap[child], item)) break;
      heap[i] = heap[child];
      heap[i].heapIndex = i;
      i = child;
    }
    heap[i] = item;
    item.heapIndex = i;
  }
}

module.exports = { TimeoutList, TimeoutStore };
