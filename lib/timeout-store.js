/*
 * timeout-store: TimeoutStore, where pending timeouts wait, ordered by expiry.
 *
 * Owns the data structure only: every timer of one delay goes into that delay's TimeoutList
 * (timeout-list.js), and the lists sit in a binary min-heap keyed by their head's expiry, ties
 * going to the earlier start (= the earlier-created timer).  The heap is touched when a list
 * gains its first timer, loses its last or has its head run, never when a timer is appended to
 * or removed from a busy list.  A key may be stale-early (its head was removed); whoever reads
 * the top re-keys it.  A list that empties stays where it is, idle, ready for the next timer of
 * its delay: a set/clear loop then creates no list per call, and clearing the first of many
 * delays costs no heap operation.  Idle lists at the end of the heap array leave at once; the
 * rest leave when a drain meets them at the top, or all at once in O(n) when they outnumber the
 * busy ones (memory and amortized cost bounded by the busy lists).  A linked list becomes a
 * ring once RING_AFTER refresh() calls have moved timers in it and it holds RING_MIN_TIMERS.
 * A pending timer's _idlePrev is not null (timeouts.js reads `_idlePrev !== null` as pending).
 * It must never call callbacks, read the clock or touch native timers: that is timeout-drain.js's and timeout-driver.js's.
 */
'use strict';

const { TimeoutList, SLOT_NUMBERS, SHRINK_BELOW } = require('./timeout-list');

// A linked list becomes a ring after this many refresh() calls have moved timers in it, if it
// then holds at least RING_MIN_TIMERS: a list of never-refreshed timers keeps costing nothing
// beyond its timers, a refresh-heavy one pays a slot per timer.  Below that size the timers and
// their neighbours stay in the CPU's caches and the linked list is the cheaper one
// (docs/decisions.md, "a delay whose timers are refresh()ed often becomes a ring of slots").
const RING_AFTER = 1024;
const RING_MIN_TIMERS = 32768;
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
    this.ringAfter = RING_AFTER;
    this.ringMinTimers = RING_MIN_TIMERS;
  }

  /* queue `timer` (whose _idleStart is already set) behind the others of its delay `msecs` */
  append(timer, msecs) {
    const list = this._openFor(timer, msecs);
    if (list.slots === null) list.link(timer);
    else list.push(timer);
    return list;
  }

  /* queue the timers chained from `first` to `last` by _idleNext (in start order, whose
     _idleStart are set) behind the others of their delay `msecs`, in one step when linked */
  appendChain(first, last, msecs) {
    const list = this._openFor(first, msecs);
    if (list.slots === null) {
      list.linkChain(first, last);
      return;
    }
    for (let timer = first; ;) {
      const next = timer._idleNext;
      list.push(timer);
      if (timer === last) break;
      timer = next;
    }
  }

  /* the list of delay `msecs`, in the heap and keyed by `timer` (its next first) if it was empty */
  _openFor(timer, msecs) {
    let list = this.lastList;
    if (list === null || list.msecs !== msecs) list = this._listFor(msecs);
    if (list.isEmpty()) {
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
    return list;
  }

  /* take a pending timer out of its list */
  unlink(timer) {
    const next = timer._idleNext;
    const prev = timer._idlePrev;
    timer._idlePrev = null;
    timer._idleNext = null;
    if (typeof next === 'number') {
      // in a ring: `prev` is the list, `next` the slot
      prev.remove(next);
      if (prev.size === 0) {
        prev.toLinked();
        this._emptied(prev);
      } else if (prev.size * SHRINK_BELOW <= prev.mask) {
        prev.compact();
      }
      return;
    }
    prev._idleNext = next;
    next._idlePrev = prev;
    // the neighbours are the same object only when it is the list's sentinel, now alone
    if (prev === next) this._emptied(prev);
  }

  /* a list lost its last timer: it stays in the heap, idle */
  _emptied(list) {
    list.idle = true;
    this.idleLists += 1;
    if (list !== this.lastList) this._trimIdle();
  }

  // Idle lists at the end of the heap array leave at once, which costs nothing (a batch cleared
  // from its last timer); the rest wait to be met at the top or compacted.  The most recently
  // used list is left alone when it is the one just emptied: it is the next timer's.
  _trimIdle() {
    const heap = this.heap;
    while (heap.length > 0 && heap[heap.length - 1].idle) this._forget(heap.pop());
    if (this.idleLists > MIN_IDLE_TO_COMPACT && this.idleLists * 2 > heap.length) this._compact();
  }

  /* restart a pending timer at `start`, behind the others of its delay `msecs` */
  restart(timer, start, msecs) {
    const list = timer._idlePrev;
    const slot = timer._idleNext;
    timer._idleStart = start;
    if (typeof slot === 'number') {
      // in a ring: appended again, unless it is the last already; its old slot goes stale
      if (list.msecs === msecs) {
        if (((slot + 1) & SLOT_NUMBERS) !== list.tail) list.pushAgain(timer);
        return;
      }
    } else if (list === slot && list.msecs === msecs) {
      // alone in its linked list: it stays where it is (the list's key becomes stale-early)
      return;
    }
    this._move(timer, msecs);
  }

  /* a pending timer in a ring, whose _idleStart is already its new start, goes behind the others
     of its list, as restart() would; false, doing nothing, unless its delay `msecs` is still its
     list's.  The list's key stays stale-early: the timer expires later than it did. */
  requeueInRing(timer, msecs) {
    const list = timer._idlePrev;
    const slot = timer._idleNext;
    if (list.msecs !== msecs || typeof slot !== 'number') return false;
    if (((slot + 1) & SLOT_NUMBERS) !== list.tail) list.pushAgain(timer);
    return true;
  }

  /* a pending linked timer, whose _idleStart is already its new start, goes behind the others of
     its delay `msecs`, as restart() would; false, doing nothing, unless that takes no more than
     relinking it: its delay's list is linked and busy, and the list it leaves keeps a timer.
     Neither list's key changes (appended to a busy list, it expires after that list's head). */
  requeueLinked(timer, msecs) {
    const list = this.lastList;
    if (list === null || list.msecs !== msecs || list.slots !== null) return false;
    const prev = timer._idlePrev;
    const next = timer._idleNext;
    if (next === list) return true;             // its last already
    const tail = list._idlePrev;
    if (prev === next || tail === list) return false;   // it leaves a list empty, or joins one
    prev._idleNext = next;
    next._idlePrev = prev;
    timer._idlePrev = tail;
    timer._idleNext = list;
    tail._idleNext = timer;
    list._idlePrev = timer;
    if (++list.restarts === this.ringAfter) list.toRing(this.ringMinTimers);
    return true;
  }

  /* a pending timer goes behind the others of its delay `msecs` (another list, or a linked one) */
  _move(timer, msecs) {
    this.unlink(timer);
    const to = this.append(timer, msecs);
    if (to.slots === null && ++to.restarts === this.ringAfter) to.toRing(this.ringMinTimers);
  }

  /* the list whose head expires first (its key may be stale-early), or undefined */
  peek() {
    return this.heap[0];
  }

  /* re-key the top list from its actual head and restore heap order; drops it if empty */
  rekeyTop() {
    const list = this.heap[0];
    const head = list.first();
    if (head === null) {
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

module.exports = { TimeoutStore };
