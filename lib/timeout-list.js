/*
 * timeout-list: TimeoutList, the pending timeouts of one delay, in start order.
 *
 * Owns the data structure of one list.  Start times never decrease, so appending keeps a list
 * sorted by expiry.  A list is kept in one of two ways (TimeoutStore decides when to switch):
 *
 *   linked (from creation): a circular doubly linked list whose sentinel is the list itself.
 *     No memory beyond the timers' own two link fields; unlinking is O(1) from anywhere and
 *     needs no reference to the list (a timer whose neighbours are the same object was the
 *     last one, and that object is the list).
 *
 *   ring: a ring of slots, each pending timer knowing its slot number (which only grows, modulo
 *     2^30, so the ring can grow or shrink without telling its timers).  A slot holds its
 *     timer's place while the timer's slot number still names it; once the timer has moved on
 *     to a later slot, the old one is stale by that alone:
 *
 *        head                                   tail
 *         v                                      v
 *   ... | A | a | B | - | c | C | D | a | E |   |   | ...    slots (number & mask)
 *                     a, c: stale (their timers' numbers name later slots), -: emptied by a clear
 *
 *     A move to the tail writes its own timer and the tail only.  A stale slot holds its timer
 *     until the head passes it or a compaction empties it.  A ring that fills up while at least
 *     three slots in four are spent is compacted in place, otherwise it doubles; it shrinks
 *     when mostly empty.  Cost: a slot per pending timer and per stale slot, 8 bytes each.
 *     Why no bit per slot: docs/decisions.md, "a ring slot is stale when its timer's slot
 *     number names a later one".
 * A pending timer's _idlePrev and _idleNext are its neighbours (linked) or its list and slot
 * number (ring); both are null otherwise.
 * It must never import anything, call callbacks, read the clock or touch native timers.
 */
'use strict';

// A list found too small to become a ring is counted again after RECOUNT_AFTER restarts per
// timer it held, so the walk costs at most 1/8 of a step per refresh().
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

  /* the pending timer that started first, or null (a ring's, out of line: the drain inlines this) */
  first() {
    if (this.slots !== null) return this._firstSlotted();
    const head = this._idleNext;
    return head === this ? null : head;
  }

  /* a ring's first pending timer, or null: its head moves over spent slots */
  _firstSlotted() {
    const slots = this.slots;
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

  /* append the timers chained from `first` to `last` by _idleNext to a linked list */
  linkChain(first, last) {
    const tail = this._idlePrev;
    first._idlePrev = tail;
    last._idleNext = this;
    tail._idleNext = first;
    this._idlePrev = last;
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

module.exports = { TimeoutList, SLOT_NUMBERS, SHRINK_BELOW };
