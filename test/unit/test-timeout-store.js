'use strict';
// TimeoutStore: lists ordered by their head's expiry (ties to the earlier start), O(1) unlink
// and restart through the timer's slot, rings that grow, compact and shrink without losing
// order, lazy re-keying, and emptied lists left idle for reuse until a drain meets them or they
// outnumber the busy ones.

const { TimeoutStore } = require('../../lib/timeout-store');

// each timer carries its own id, so that two drained timers never look alike: an order test
// compared with deepEqual then fails on any permutation
let ids = 0;
function timer(start) {
  return { id: ++ids, _idlePrev: null, _idleNext: null, _idleStart: start };
}

/* a store whose lists become rings after `ringAfter` restarts when they hold `minTimers` */
function ringStore(ringAfter, minTimers) {
  const store = new TimeoutStore();
  store.ringAfter = ringAfter;
  store.ringMinTimers = minTimers;
  return store;
}

/* `n` timers started at `start`, appended to the list of `msecs` */
function queued(store, n, start, msecs) {
  const ts = [];
  for (let i = 0; i < n; i++) { ts.push(timer(start)); store.append(ts[i], msecs); }
  return ts;
}

/* pop every timer in the store's order (what timeout-drain.js's drain does) */
function drain(store) {
  const out = [];
  for (;;) {
    const list = store.peek();
    if (list === undefined) return out;
    const head = list.first();
    if (head === null || head._idleStart !== list.start) { store.rekeyTop(); continue; }
    store.unlink(head);
    out.push(head);
  }
}

module.exports = {
  'timers come out in expiry order across delays': function(t) {
    const store = new TimeoutStore();
    const a = timer(0); store.append(a, 50);   // expires 50
    const b = timer(0); store.append(b, 10);   // 10
    const c = timer(5); store.append(c, 10);   // 15
    const d = timer(5); store.append(d, 30);   // 35
    t.deepEqual(drain(store), [b, c, d, a]);
    t.done();
  },

  'equal expiry: the earlier start (created first) comes first': function(t) {
    const store = new TimeoutStore();
    const long = timer(0); store.append(long, 20);    // expires 20, started 0
    const short = timer(10); store.append(short, 10); // expires 20, started 10
    t.deepEqual(drain(store), [long, short]);
    t.done();
  },

  'same delay and start: insertion order': function(t) {
    const store = new TimeoutStore();
    const ts = [];
    for (let i = 0; i < 10; i++) { ts.push(timer(3)); store.append(ts[i], 7); }
    t.deepEqual(drain(store), ts);
    t.done();
  },

  'appendChain queues a chain behind the timers of its list, opens an empty list, and fills a ring': function(t) {
    /* `n` timers started at `start`, chained by _idleNext, the last one's null */
    function chain(n, start) {
      const ts = [];
      for (let i = 0; i < n; i++) ts.push(timer(start));
      for (let i = 0; i < n; i++) {
        ts[i]._idlePrev = i === 0 ? null : ts[i - 1];
        ts[i]._idleNext = i === n - 1 ? null : ts[i + 1];
      }
      return ts;
    }
    const store = new TimeoutStore();
    const before = queued(store, 2, 0, 10);
    const more = chain(3, 1);
    store.appendChain(more[0], more[2], 10);
    const fresh = chain(2, 0);
    store.appendChain(fresh[0], fresh[1], 5);         // an empty list, keyed by its first
    t.strictEqual(store.lists[5].expiry, 5);
    t.deepEqual(drain(store), [...fresh, ...before, ...more]);

    const rings = ringStore(1, 1);
    const ringed = queued(rings, 2, 0, 10);
    rings.restart(ringed[0], 0, 10);                  // one restart: the list becomes a ring
    t.ok(rings.lists[10].slots !== null, 'a ring');
    const tail = chain(3, 1);
    rings.appendChain(tail[0], tail[2], 10);
    t.deepEqual(drain(rings), [ringed[1], ringed[0], ...tail]);
    t.done();
  },

  'unlink from the middle, head and tail': function(t) {
    const store = new TimeoutStore();
    const ts = [];
    for (let i = 0; i < 5; i++) { ts.push(timer(i)); store.append(ts[i], 100); }
    store.unlink(ts[2]);
    store.unlink(ts[0]);
    store.unlink(ts[4]);
    t.strictEqual(ts[2]._idlePrev, null);
    t.strictEqual(ts[2]._idleNext, null);
    t.deepEqual(drain(store), [ts[1], ts[3]]);
    t.done();
  },

  'an emptied list stays, idle, for the next timer of its delay; a drain drops it': function(t) {
    const store = new TimeoutStore();
    const a = timer(0); store.append(a, 10);
    const b = timer(0); store.append(b, 20);
    t.equal(store.heap.length, 2);
    store.unlink(a);                       // list 10 empties: no heap operation
    t.equal(store.heap.length, 2);
    t.equal(store.idleLists, 1);
    const list10 = store.lists[10];
    const c = timer(5); store.append(c, 10);
    t.strictEqual(store.lists[10], list10, 'the idle list is reused');
    t.equal(store.idleLists, 0);
    store.unlink(c);
    t.deepEqual(drain(store), [b], 'the idle list yields nothing');
    t.equal(store.heap.length, 0, 'drained to nothing');
    t.equal(store.idleLists, 0);
    t.strictEqual(store.lists[10], undefined);
    t.strictEqual(store.lists[20], undefined);
    t.done();
  },

  'idle lists leave all at once when they outnumber the busy ones': function(t) {
    const store = new TimeoutStore();
    const timers = [];
    for (let d = 1; d <= 1000; d++) { const tm = timer(0); store.append(tm, d); timers.push(tm); }
    // clear the first 499: never more idle lists than busy ones, so all stay
    for (let i = 0; i < 499; i++) store.unlink(timers[i]);
    t.equal(store.heap.length, 1000);
    t.equal(store.idleLists, 499);
    store.unlink(timers[499]);             // 500 idle, 500 busy: still not more
    t.equal(store.heap.length, 1000);
    store.unlink(timers[500]);             // 501 idle of 1000: compacted
    t.equal(store.heap.length, 499);
    t.equal(store.idleLists, 0);
    t.strictEqual(store.lists[1], undefined);
    t.strictEqual(store.lists[501], undefined);
    t.ok(store.lists[502] !== undefined);
    for (let i = 0; i < store.heap.length; i++) t.equal(store.heap[i].heapIndex, i);
    // a new timer of a compacted delay gets a fresh list, and order is intact
    const again = timer(1); store.append(again, 1);
    const got = drain(store);
    t.equal(got.length, 500);
    t.strictEqual(got[0], again);
    for (let i = 1; i < got.length; i++) t.strictEqual(got[i], timers[500 + i]);
    t.done();
  },

  'restart moves a timer behind the others of its delay': function(t) {
    const store = new TimeoutStore();
    const a = timer(0); store.append(a, 10);
    const b = timer(1); store.append(b, 10);
    store.restart(a, 2, 10);
    t.equal(a._idleStart, 2);
    t.deepEqual(drain(store), [b, a]);
    const lone = timer(0); store.append(lone, 5);
    const other = timer(0); store.append(other, 7);
    store.restart(lone, 4, 5);             // alone in its list: restarted in place
    t.deepEqual(drain(store), [other, lone]);
    t.done();
  },

  'random workload matches a sorted reference': function(t) {
    randomWorkload(t, 40, 5000);
    // many delays, most of them emptied: idle lists pile up and get compacted along the way
    const compactions = randomWorkload(t, 3000, 20000);
    t.ok(compactions > 0, compactions + ' compactions');
    t.done();
  },

  'a list becomes a ring after ringAfter restarts, in the same order': function(t) {
    const store = ringStore(3, 0);
    const ts = [];
    for (let i = 0; i < 6; i++) { ts.push(timer(i)); store.append(ts[i], 10); }
    const list = store.lists[10];
    store.restart(ts[0], 6, 10);
    store.restart(ts[1], 7, 10);
    t.strictEqual(list.slots, null, 'still linked after 2 restarts');
    store.restart(ts[2], 8, 10);
    t.ok(Array.isArray(list.slots), 'a ring after 3');
    t.strictEqual(ts[3]._idlePrev, list, 'a timer in a ring names its list');
    t.equal(typeof ts[3]._idleNext, 'number', 'and its slot');
    // in a ring: the refreshed timer goes behind the others, its old slot goes stale
    store.restart(ts[3], 9, 10);
    store.restart(ts[3], 9, 10);          // already last: stays
    t.deepEqual(drain(store), [ts[4], ts[5], ts[0], ts[1], ts[2], ts[3]]);
    t.strictEqual(list.slots, null, 'emptied: linked again');
    t.done();
  },

  'a list under ringMinTimers stays linked, and is counted again after 8 restarts per timer': function(t) {
    const store = ringStore(2, 5);
    const ts = queued(store, 4, 0, 10);
    const list = store.lists[10];
    let now = 0;
    for (let i = 0; i < 2 + 8 * 4 + 1; i++) store.restart(ts[i % 4], ++now, 10);
    t.strictEqual(list.slots, null, 'four timers: still linked after ' + (2 + 8 * 4 + 1) + ' restarts');
    ts.push(timer(now)); store.append(ts[4], 10);
    store.restart(ts[0], ++now, 10);      // the 8 * 4 + 2nd restart since the count: counted again
    t.ok(Array.isArray(list.slots), 'five timers: a ring');
    t.equal(drain(store).length, 5);
    t.done();
  },

  'requeueInRing moves a stamped timer behind the others of its ring, and only that': function(t) {
    const store = ringStore(1, 0);
    const ts = queued(store, 4, 0, 10);
    const linked = timer(0); store.append(linked, 20);
    store.restart(ts[0], 1, 10);             // the list becomes a ring: 1, 2, 3, 0
    ts[1]._idleStart = 2;
    t.strictEqual(store.requeueInRing(ts[1], 10), true, 'moved');
    t.strictEqual(store.requeueInRing(ts[1], 10), true, 'already last: stays');
    t.strictEqual(store.requeueInRing(ts[2], 30), false, 'a delay no longer its list\'s: left to restart()');
    t.strictEqual(ts[2]._idlePrev, store.lists[10], 'where it was');
    t.strictEqual(store.requeueInRing(linked, 20), false, 'a linked timer: left to restart()');
    t.deepEqual(drain(store), [ts[2], ts[3], ts[0], ts[1], linked]);
    t.done();
  },

  'requeueLinked relinks a stamped timer behind the others of its busy linked list, and only that': function(t) {
    const store = new TimeoutStore();
    const ts = queued(store, 3, 0, 10);
    const other = queued(store, 2, 0, 20);
    const alone = timer(0); store.append(alone, 30);
    store.append(timer(0), 10);              // the list of 10 is the last one used
    const last = store.lists[10]._idlePrev;
    ts[0]._idleStart = 1;
    t.strictEqual(store.requeueLinked(ts[0], 10), true, 'moved');
    t.strictEqual(store.requeueLinked(ts[0], 10), true, 'already last: stays');
    other[0]._idleStart = 2;
    t.strictEqual(store.requeueLinked(other[0], 10), true, 'from a list that keeps a timer, into a busy one');
    t.strictEqual(store.requeueLinked(alone, 10), false, 'it would leave its list empty: left to restart()');
    t.strictEqual(store.requeueLinked(other[1], 20), false, 'its delay\'s list is not the last used: left to restart()');
    t.strictEqual(alone._idleNext, store.lists[30], 'where it was');
    t.deepEqual(drain(store).map((x) => x.id), [ts[1], ts[2], last, ts[0], other[0], other[1], alone].map((x) => x.id));
    t.done();
  },

  'requeueLinked leaves a ring, or an empty list to join, to restart()': function(t) {
    const store = ringStore(1, 0);
    const ts = queued(store, 3, 0, 10);
    store.restart(ts[0], 1, 10);             // the list becomes a ring
    t.strictEqual(store.requeueLinked(ts[1], 10), false, 'a ring');
    const empty = new TimeoutStore();
    const a = timer(0); empty.append(a, 10);
    const b = timer(0); empty.append(b, 10);
    empty.append(timer(0), 20);
    empty.unlink(empty.lists[20]._idleNext);   // the list of 20 is idle, and the last used
    t.strictEqual(empty.requeueLinked(a, 20), false, 'an empty list to join');
    t.done();
  },

  'a ring empties a cleared timer\'s slot at once': function(t) {
    const store = ringStore(1, 0);
    const a = timer(0); store.append(a, 10);
    const b = timer(0); store.append(b, 10);
    const c = timer(1); store.append(c, 10);
    store.restart(a, 2, 10);                 // the list becomes a ring: b, c, a
    const list = store.lists[10];
    t.ok(Array.isArray(list.slots));
    store.unlink(b);
    t.ok(list.slots.indexOf(b) < 0, 'no slot holds the cleared timer');
    t.strictEqual(b._idlePrev, null);
    t.strictEqual(b._idleNext, null);
    t.deepEqual(drain(store), [c, a]);
    t.done();
  },

  'a slot its timer moved on from is stale, even where the timer holds that number in another ring': function(t) {
    const store = ringStore(1, 0);
    const x = timer(0); store.append(x, 10);
    const a = timer(0); store.append(a, 10);
    const b = timer(0); store.append(b, 10);
    store.restart(b, 1, 10);                 // the list becomes a ring: x 0, a 1, b 2
    const ring10 = store.lists[10];
    store.restart(x, 2, 10);                 // x to slot 3; slot 0 still holds x, stale
    t.strictEqual(ring10.slots[0], x, 'the stale slot still holds its timer');
    store.restart(x, 3, 20);                 // x leaves for delay 20, a new ring: x 0 there
    const ring20 = store.lists[20];
    t.ok(Array.isArray(ring20.slots), 'delay 20 became a ring');
    t.strictEqual(x._idlePrev, ring20);
    t.strictEqual(x._idleNext, 0, 'x holds slot number 0 again, in the other ring');
    t.strictEqual(ring10.first(), a, 'delay 10 does not take x for its head');
    const seen = [];
    ring10.forEach((tm) => seen.push(tm));
    t.deepEqual(seen, [a, b], 'nor lists it');
    t.deepEqual(drain(store), [a, b, x]);
    t.done();
  },

  'a ring grows, compacts its stale slots and shrinks, in order': function(t) {
    const store = ringStore(1, 0);
    const ts = queued(store, 1000, 0, 50);
    const list = store.lists[50];
    // 20 rounds of refreshing every timer: 20000 appends on 1000 timers, mostly stale slots
    let now = 0;
    for (let round = 0; round < 20; round++) {
      now += 1;
      for (let i = 0; i < ts.length; i++) store.restart(ts[(i * 7 + round) % ts.length], now, 50);
    }
    t.ok(list.mask + 1 <= 8 * 1000, 'at most 8 slots per pending timer: ' + (list.mask + 1));
    // clear 990 of them: the ring shrinks
    for (let i = 0; i < 990; i++) store.unlink(ts[(i * 7 + 19) % ts.length]);
    t.ok(list.mask + 1 <= 64, 'shrunk to ' + (list.mask + 1));
    const left = [];
    for (let i = 990; i < 1000; i++) left.push(ts[(i * 7 + 19) % ts.length]);
    t.deepEqual(drain(store), left);
    t.done();
  },

  'random workload with rings matches a sorted reference': function(t) {
    randomWorkload(t, 40, 5000, 2);
    randomWorkload(t, 5, 20000, 1);
    t.done();
  },
};

function randomWorkload(t, maxDelay, steps, ringAfter) {
    let seed = 12345;
    const rand = (n) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
    const store = ringAfter === undefined ? new TimeoutStore() : ringStore(ringAfter, 0);
    const live = new Set();
    let now = 0;
    let compactions = 0;
    const compact = store._compact;
    store._compact = function() { compactions += 1; compact.call(this); };
    for (let i = 0; i < steps; i++) {
      now += rand(3);
      const op = rand(10);
      // the wide workload removes as often as it adds, so that lists keep emptying
      if (op < (maxDelay > 40 ? 4 : 6) || live.size === 0) {
        const tm = timer(now);
        tm.msecs = 1 + rand(maxDelay);
        tm.seq = i;
        store.append(tm, tm.msecs);
        live.add(tm);
      } else {
        const all = Array.from(live);
        const tm = all[rand(all.length)];
        if (op < 8) { store.unlink(tm); live.delete(tm); }
        else { store.restart(tm, now, tm.msecs); tm.seq = i; }
      }
    }
    const got = drain(store);
    const want = Array.from(live).sort((x, y) =>
      (x._idleStart + x.msecs) - (y._idleStart + y.msecs) || x._idleStart - y._idleStart || x.seq - y.seq);
    t.equal(got.length, want.length);
    for (let i = 0; i < got.length; i++) {
      const g = got[i], w = want[i];
      t.equal(g._idleStart + g.msecs, w._idleStart + w.msecs, 'expiry at position ' + i);
      t.equal(g._idleStart, w._idleStart, 'start at position ' + i);
    }
    t.equal(store.idleLists, 0, 'no idle list left after the drain');
    t.equal(store.heap.length, 0);
    return compactions;
}
