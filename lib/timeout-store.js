/*
 * TimeoutList and TimeoutStore: where pending timeouts wait, ordered by expiry.
 *
 * Owns the data structure only.  Every timer of one delay goes into that delay's TimeoutList, a
 * queue in start order: because start times never decrease, appending keeps it sorted by expiry
 * for free.  A list is kept in one of two ways, and switches by how it is used:
 *
 *   linked (from creation): a circular doubly linked list whose sentinel is the list itself.
 *     No memory beyond the timers' own two link fields; unlinking is O(1) from anywhere and
 *     needs no reference to the list (a timer whose neighbours are the same object was the
 *     last one, and that object is the list).  refresh() unlinks and appends, which writes into
 *     both neighbours: two other timers anywhere in the heap.
 *
 *   ring (once RING_AFTER refresh() calls have moved timers in a list of RING_MIN_TIMERS or
 *     more): a ring of slots, each pending timer knowing its slot number (which only grows,
 *     modulo 2^30, so the ring can grow or shrink without telling its timers).  A slot holds its
 *     timer's place while the timer's slot number still names it; once the timer has moved on
 *     to a later slot, the old one is stale by that alone:
 *
 *        head                                   tail
 *         v                                      v
 *   ... | A | a | B | - | c | C | D | a | E |   |   | ...    slots (number & mask)
 *                     a, c: stale (their timers' numbers name later slots), -: emptied by a clear
 *
 *     refresh() writes the timer's start and appends it again: it writes its own timer and the
 *     tail, where the linked list wrote into two other timers anywhere in the heap.  Clearing a
 *     timer also empties its slot; a stale slot holds its timer until the head passes it,
 *     within the list's delay, or a compaction empties it, and the head tells a stale slot by
 *     reading its timer (docs/decisions.md, "a ring slot is stale when its timer's slot number
 *     names a later one").  A ring that fills up while at least three slots in four are spent
 *     is compacted in place (the live timers renumbered: after at least three appends per live
 *     timer since the last time), otherwise it doubles; it shrinks when mostly empty, and an
 *     emptied list goes back to being linked.
 *     Cost: a slot per pending timer and per stale slot, 8 bytes each, at most 8 per timer.
 *
 * The lists sit in a binary min-heap keyed by their head's expiry, ties going to the earlier
 * start (= the earlier-created timer), so the heap is touched when a list gains its first timer,
 * loses its last or has its head run, never when a timer is appended to or removed from a busy
 * list.  A key may be stale-early (its head was removed); whoever reads the top re-keys it.  A
 * list that empties stays where it is, an idle list with a stale-early key, ready for the next
 * timer of its delay: a set/clear loop then creates no list per call, and clearing the first of
 * many delays (the common way to cancel a batch) costs no heap operation.  (Idle lists at the
 * end of the heap array leave at once, which costs nothing.)  An idle list leaves when a drain
 * meets it at the top, or, all idle ones at once in O(n), when they outnumber the busy ones,
 * which bounds both their memory (never more than the busy lists, plus a few) and the amortized
 * cost (O(1) per emptied list).
 * A pending timer's _idlePrev and _idleNext are its neighbours (linked) or its list and slot
 * number (ring); both are null otherwise (timeouts.js reads `_idlePrev !== null` as pending).
 * It must never call callbacks, read the clock or touch native timers: that is timeouts.js's.
 */
'use strict';

// A linked list becomes a ring after this many refresh() calls have moved timers in it, if it
// then holds at least RING_MIN_TIMERS: a list of never-refreshed timers keeps costing nothing
// beyond its timers, a refresh-heavy one pays a slot per timer.  Below that size the timers and
// their neighbours stay in the CPU's caches and the linked list is the cheaper one
// (docs/decisions.md, "a delay whose timers are refresh()ed often becomes a ring of slots").
// A list found too small is counted again after RECOUNT_AFTER restarts per timer it held, so
// the walk costs at most 1/8 of a step per refresh().
const RING_AFTER = 1024;
const RING_MIN_TIMERS = 32768;
const RECOUNT_AFTER = 8;
// Slot numbers count modulo 2^30, so they stay small integers (a field holding one never turns
// into a boxed double); rings never exceed 2^29 slots, so (number & mask) stays exact.
const SLOT_NUMBERS = 0x3fffffff;
// The smallest ring.
const MIN_SLOTS = 32;
// Compact rather than grow when at least 3 slots in 4 are empty or stale.
const SPARE_TO_COMPACT = 4;
// Shrink when pending timers fill under 1 slot in 16.
const SHRINK_BELOW = 16;

class TimeoutList {
  constructor(msecs) {
    // sentinel links, named like the timers' so unlinking never needs to know which is which
    this._idlePrev = this;
    this._idleNext = this;
    this.slots = null;      // the ring, or null while linked
    this.mask = 0;
    this.head = 0;          // ring: slot number of the first slot in use (live, stale or empty)
    this.tail = 0;          // ring: slot number the next timer gets
    this.size = 0;          // ring: pending timers
    this.restarts = 0;      // linked: timers moved by refresh() since it was made or emptied
    this.msecs = msecs;
    this.expiry = 0;        // heap key: head expiry when last keyed, never later than the truth
    this.start = 0;         // tie-break: head start when last keyed
    this.heapIndex = -1;    // -1 while not in the heap
    this.idle = false;      // empty, but still in the heap and the map
  }

  isEmpty() {
    return this.slots === null ? this._idleNext === this : this.size === 0;
  }

  /* the pending timer that started first, or null (a ring's head moves over spent slots) */
  first() {
    const slots = this.slots;
    if (slots === null) {
      const head = this._idleNext;
      return head === this ? null : head;
    }
    const mask = this.mask;
    for (let n = this.head; n !== this.tail; n = (n + 1) & SLOT_NUMBERS) {
      const i = n & mask;
      const timer = slots[i];
      if (this.holds(timer, n)) {
        this.head = n;
        return timer;
      }
      slots[i] = null;        // a stale slot lets its timer go as the head passes it
    }
    this.head = this.tail;
    return null;
  }

  /* visit(timer, msecs) for every pending timer, in start order */
  forEach(visit) {
    const slots = this.slots;
    if (slots === null) {
      for (let timer = this._idleNext; timer !== this; timer = timer._idleNext) visit(timer, this.msecs);
      return;
    }
    for (let n = this.head; n !== this.tail; n = (n + 1) & SLOT_NUMBERS) {
      const timer = slots[n & this.mask];
      if (this.holds(timer, n)) visit(timer, this.msecs);
    }
  }

  /* append to a linked list */
  link(timer) {
    const tail = this._idlePrev;
    timer._idlePrev = tail;
    timer._idleNext = this;
    tail._idleNext = timer;
    this._idlePrev = timer;
  }

  /* append to a ring */
  push(timer) {
    if (((this.tail - this.head) & SLOT_NUMBERS) > this.mask) this.makeRoom();
    const n = this.tail;
    const i = n & this.mask;
    this.slots[i] = timer;
    timer._idlePrev = this;
    timer._idleNext = n;
    this.tail = (n + 1) & SLOT_NUMBERS;
    this.size += 1;
  }

  /* whether slot number `n` holds its timer's place: a timer knows only its latest slot */
  holds(timer, n) {
    return timer !== null && timer._idleNext === n && timer._idlePrev === this;
  }

  /* a pending timer moves to the tail; the slot it leaves goes stale by itself (the timer's slot
     number no longer names it), so the move writes nothing but the tail and the timer (not
     through push(), which also rewrites the timer's list: docs/decisions.md) */
  pushAgain(timer) {
    if (((this.tail - this.head) & SLOT_NUMBERS) > this.mask) {
      this.size -= 1;         // it leaves its slot before making room: compact() must not keep it
      timer._idleNext = null;
      this.makeRoom();
      this.size += 1;
    }
    const n = this.tail;
    this.slots[n & this.mask] = timer;
    timer._idleNext = n;
    this.tail = (n + 1) & SLOT_NUMBERS;
  }

  /* the pending timer in slot `n` leaves the ring (cleared or run): its slot is emptied */
  remove(n) {
    this.slots[n & this.mask] = null;
    this.size -= 1;
  }

  /* the ring is full: compact it if mostly spent, else double it */
  makeRoom() {
    const capacity = this.mask + 1;
    if (this.size * SPARE_TO_COMPACT <= capacity) this.compact();
    else this.resize(capacity * 2);
  }

  /* live slots move up to the head, renumbered in order, spent ones are emptied; may shrink */
  compact() {
    const slots = this.slots;
    const mask = this.mask;
    let to = this.head;
    for (let n = this.head; n !== this.tail; n = (n + 1) & SLOT_NUMBERS) {
      const i = n & mask;
      const timer = slots[i];
      if (!this.holds(timer, n)) {
        slots[i] = null;
        continue;
      }
      if (n !== to) {
        slots[i] = null;
        slots[to & mask] = timer;
        timer._idleNext = to;
      }
      to = (to + 1) & SLOT_NUMBERS;
    }
    this.tail = to;
    const capacity = mask + 1;
    if (capacity > MIN_SLOTS && this.size * SHRINK_BELOW < capacity) this.resize(ringFor(this.size));
  }

  /* a new ring of `capacity` slots holding the same slots under the same numbers */
  resize(capacity) {
    const slots = newRing(capacity);
    const mask = capacity - 1;
    // every slot in use, stale ones too: they stay stale under the same number
    for (let n = this.head; n !== this.tail; n = (n + 1) & SLOT_NUMBERS) {
      slots[n & mask] = this.slots[n & this.mask];
    }
    this.slots = slots;
    this.mask = mask;
  }

  /* a linked list becomes a ring, its timers taking slots 0.. in order, if it holds at least
     `minTimers`; false if not (it is then asked again after RECOUNT_AFTER restarts per timer) */
  toRing(minTimers) {
    let count = 0;
    for (let timer = this._idleNext; timer !== this; timer = timer._idleNext) count += 1;
    if (count < minTimers) {
      this.restarts = -RECOUNT_AFTER * count;
      return false;
    }
    const capacity = ringFor(count);
    let timer = this._idleNext;
    this._idlePrev = this;
    this._idleNext = this;
    this.slots = newRing(capacity);
    this.mask = capacity - 1;
    this.head = 0;
    this.tail = 0;
    this.size = 0;
    // the chain ends at this list, whose links are reset: each timer's next is read before
    // push() overwrites it
    while (timer !== this) {
      const next = timer._idleNext;
      this.push(timer);
      timer = next;
    }
    return true;
  }

  /* emptied: linked again, its ring (and the stale slots in it) let go */
  toLinked() {
    this.slots = null;
    this.mask = 0;
    this.head = 0;
    this.tail = 0;
    this.size = 0;
    this.restarts = 0;
  }
}

/* a ring of `capacity` empty slots (a packed array of nulls: never holey) */
function newRing(capacity) {
  const slots = [];
  for (let i = 0; i < capacity; i++) slots.push(null);
  return slots;
}

/* the ring for `size` pending timers: room for as many again */
function ringFor(size) {
  let capacity = MIN_SLOTS;
  while (capacity < size * 2) capacity *= 2;
  return capacity;
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
    this.ringAfter = RING_AFTER;
    this.ringMinTimers = RING_MIN_TIMERS;
  }

  /* queue `timer` (whose _idleStart is already set) behind the others of its delay `msecs` */
  append(timer, msecs) {
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
    if (list.slots === null) list.link(timer);
    else list.push(timer);
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

module.exports = { TimeoutList, TimeoutStore };
