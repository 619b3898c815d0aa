/*
 * TimeoutList and TimeoutStore: where pending timeouts wait, ordered by expiry.
 *
 * Owns the data structure only.  Every timer of one delay goes into that delay's TimeoutList,
 * a circular doubly linked list whose sentinel is the list object itself: appending is O(1) and,
 * because start times never decrease, keeps the list sorted by expiry for free; unlinking is O(1)
 * from anywhere and needs no reference to the list (a timer whose neighbours are the same object
 * was the last one, and that object is the list).  The lists sit in a binary min-heap keyed by
 * their head's expiry, ties going to the earlier start (= the earlier-created timer), so the
 * heap is touched when a list gains its first timer, loses its last or has its head run, never
 * when a timer is appended to or removed from a busy list.  A key may be stale-early (its head
 * was removed); whoever reads the top re-keys it.  A list that empties stays where it is, an
 * idle list with a stale-early key, ready for the next timer of its delay: a set/clear loop then
 * creates no list per call, and clearing the first of many delays (the common way to cancel a
 * batch) costs no heap operation.  (Idle lists at the end of the heap array leave at once,
 * which costs nothing.)  An idle list leaves when a drain meets it at the top, or, all
 * idle ones at once in O(n), when they outnumber the busy ones, which bounds both their memory
 * (never more than the busy lists, plus a few) and the amortized cost (O(1) per emptied list).
 * It must never call callbacks, read the clock or touch native timers: that is timeouts.js's.
 */
'use strict';

class TimeoutList {
  constructor(msecs) {
    // sentinel links, named like the timers' so unlinking never needs to know which is which
    this._idlePrev = this;
    this._idleNext = this;
    this.msecs = msecs;
    this.expiry = 0;        // heap key: head expiry when last keyed, never later than the truth
    this.start = 0;         // tie-break: head start when last keyed
    this.heapIndex = -1;    // -1 while not in the heap
    this.idle = false;      // empty, but still in the heap and the map
  }
}

// Idle lists are compacted away only beyond this many: a program cycling through a few dozen
// delays keeps all their lists for reuse.
const MIN_IDLE_TO_COMPACT = 64;

function less(a, b) {
  return a.expiry < b.expiry || (a.expiry === b.expiry && a.start < b.start);
}

class TimeoutStore {
  constructor() {
    // msecs -> TimeoutList.  A plain object: whole-number keys live in V8's element dictionary,
    // which beats a Map by about 2x when there are many delays (Node uses the same).
    this.lists = Object.create(null);
    this.heap = [];             // the same lists, min-heap by (expiry, start)
    this.lastList = null;       // most servers use one or two delays: skip the map for repeats
    this.idleLists = 0;         // lists in the heap that are empty
  }

  /* link `timer` (whose _idleStart is already set) at the tail of the list for `msecs` */
  append(timer, msecs) {
    let list = this.lastList;
    if (list === null || list.msecs !== msecs) list = this._listFor(msecs);
    const tail = list._idlePrev;
    if (tail === list) {
      // An idle list keeps its old key: earlier than this timer's expiry, which is allowed
      // (stale-early) and costs nothing now.
      if (list.idle) {
        list.idle = false;
        this.idleLists -= 1;
      } else {
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
    // the neighbours are the same object only when it is the list's sentinel, now alone
    if (prev === next) {
      prev.idle = true;
      this.idleLists += 1;
      if (prev !== this.lastList) this._trimIdle();
    }
  }

  // Idle lists at the end of the heap array leave at once, which costs nothing (a batch cleared
  // from its last timer); the rest wait to be met at the top or compacted.  The most recently
  // used list is left alone when it is the one just emptied: it is the next timer's.
  _trimIdle() {
    const heap = this.heap;
    while (heap.length > 0 && heap[heap.length - 1].idle) this._forget(heap.pop());
    if (this.idleLists > MIN_IDLE_TO_COMPACT && this.idleLists * 2 > heap.length) this._compact();
  }

  /* restart a linked timer at `start`, moving it behind the others of its delay */
  restart(timer, start, msecs) {
    const prev = timer._idlePrev;
    if (prev === timer._idleNext && prev.msecs === msecs) {
      // alone in its list: it stays where it is (the list's key becomes stale-early)
      timer._idleStart = start;
      return;
    }
    this.unlink(timer);
    timer._idleStart = start;
    this.append(timer, msecs);
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
      this._drop(list);
      return;
    }
    list.expiry = head._idleStart + list.msecs;
    list.start = head._idleStart;
    this._siftDown(0);
  }

  _listFor(msecs) {
    let list = this.lists[msecs];
    if (list === undefined) {
      list = new TimeoutList(msecs);
      this.lists[msecs] = list;
    }
    this.lastList = list;
    return list;
  }

  /* an empty list leaves the heap and the map */
  _drop(list) {
    if (list.heapIndex >= 0) this._removeAt(list.heapIndex);
    this._forget(list);
  }

  /* a list taken out of the heap (or about to be dropped from it whole) leaves the map too */
  _forget(list) {
    if (list.idle) {
      list.idle = false;
      this.idleLists -= 1;
    }
    list.heapIndex = -1;
    delete this.lists[list.msecs];
    if (this.lastList === list) this.lastList = null;
  }

  /* every idle list leaves; the busy ones are re-heaped in O(n) */
  _compact() {
    const heap = this.heap;
    let n = 0;
    for (let i = 0; i < heap.length; i++) {
      const list = heap[i];
      if (list.idle) this._forget(list);
      else heap[n++] = list;
    }
    heap.length = n;
    for (let i = 0; i < n; i++) heap[i].heapIndex = i;
    for (let i = (n >> 1) - 1; i >= 0; i--) this._siftDown(i);
  }

  _insert(list) {
    const i = this.heap.length;
    this.heap.push(list);
    list.heapIndex = i;
    this._siftUp(i);
  }

  _removeAt(i) {
    const heap = this.heap;
    const item = heap[i];
    const last = heap.pop();
    item.heapIndex = -1;
    if (last !== item) {
      heap[i] = last;
      last.heapIndex = i;
      if (i > 0 && less(last, heap[(i - 1) >> 1])) this._siftUp(i);
      else this._siftDown(i);
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
