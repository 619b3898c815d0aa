'use strict';
// lib/coarse.js on its own: notes settled by the reading the test hands it, slots, and the
// hand-over of due timers to the drain's store, with no clock and no event loop involved, so a
// slot that fires late is as late as the test says.  (test/system/test-coarse.js compares the
// mode with native Node in whole programs.)

require('../../lib/timeouts');              // wires the native driver coarse.js asks for wakeups
const coarse = require('../../lib/coarse');
const { settled } = require('../../lib/refresh-batch');
const { FORCED } = require('../../lib/flags');
const { CoarseSlots } = require('../../lib/coarse-slots');

const DELAY = 1000;                         // granularity 32 ms (the largest power of two <= 1000/16)

/* a Timeout-shaped object made coarse by coarse(timer) (FORCED), not pending */
function timer(name) {
  return { name, _idleTimeout: DELAY, _idleStart: 0, _idlePrev: null, _idleNext: null, _flags: FORCED, _onTimeout() {} };
}

/* the names of the timers handed to the drain since the last call, in the order it would run them */
function handedOver() {
  const list = settled().peek();
  const out = [];
  if (list !== undefined) list.forEach((t) => out.push(t));
  for (const t of out) settled().unlink(t);
  return out.map((t) => t.name);
}

module.exports = {
  'a slot is 1/16 of the delay or less, a power of two': function(t) {
    t.strictEqual(coarse.granularity(1000), 32);
    t.strictEqual(coarse.granularity(30000), 1024);
    t.strictEqual(coarse.granularity(15), 1);
    t.done();
  },

  'one delay is handed over in the order of its calls, also when a slot a timer was left in fires late': function(t) {
    // X armed at 0 (its slot: 1024), Y at 40 (1056); both refreshed at 75, X first: both due at
    // 1075, in the slot of 1088.  The slot Y was left in fires late, at 1080: Y is due by then,
    // but must not go ahead of X, which waits in 1088.
    const x = timer('X');
    const y = timer('Y');
    coarse.armedAt(x, 0, false);
    coarse.armedAt(y, 40, false);
    coarse.refreshed(x);
    coarse.refreshed(y);
    coarse.atDrain(75);
    t.deepEqual([x._idleStart, y._idleStart], [75, 75], 'settled by the reading after the calls');
    t.deepEqual(handedOver(), [], 'nothing due at 75');
    coarse.atDrain(1030);                     // X's old slot: X moves on to 1088
    t.deepEqual(handedOver(), [], 'nothing due at 1030');
    coarse.atDrain(1080);                     // Y's old slot, late
    t.deepEqual(handedOver(), [], 'Y waits for the slot of its expiry, where X is');
    coarse.atDrain(1088);
    t.deepEqual(handedOver(), ['X', 'Y'], 'then both, in the order of their calls');
    t.done();
  },

  'never early: a timer is handed over only once its expiry has passed, whatever slot fires': function(t) {
    const timers = [];
    for (let i = 0; i < 40; i++) {
      const x = timer('T' + i);
      coarse.armedAt(x, i * 7, false);
      timers.push(x);
    }
    for (let i = 0; i < 40; i += 3) coarse.refreshed(timers[i]);
    coarse.atDrain(300);
    for (let now = 300; now <= 1500; now += 9) {
      coarse.atDrain(now);
      for (const name of handedOver()) {
        const x = timers[Number(name.slice(1))];
        t.ok(x._idleStart + DELAY <= now, `${name}: due at ${x._idleStart + DELAY}, handed over at ${now}`);
        t.ok(now - (x._idleStart + DELAY) <= 32 + 9, `${name}: within a slot (and the step) of its expiry`);
        x.done = true;
      }
    }
    t.ok(timers.every((x) => x.done), 'every one handed over once');
    t.done();
  },

  'timers of mixed delays met out of order in a slot are sorted by expiry before the hand-over': function(t) {
    // both in the slot of 1024 (granularity 32), met in the order they were armed: A (1010) first
    const a = timer('A');
    a._idleTimeout = 1010;
    const b = timer('B');
    coarse.armedAt(a, 0, false);
    coarse.armedAt(b, 5, false);            // expires 1005
    coarse.atDrain(1024);
    t.deepEqual(handedOver(), ['B', 'A']);
    t.done();
  },

  'a slot emptied by a clear leaves the Map; a timer added for its time gets a slot that fires': function(t) {
    const slots = new CoarseSlots();
    const first = { _idlePrev: null, _idleNext: null };
    const second = { _idlePrev: null, _idleNext: null };
    slots.add(first, 100);
    slots.unlink(first);
    t.strictEqual(slots.byTime.size, 0);
    slots.add(second, 100);
    const slot = slots.takeDue(100);
    t.ok(slot !== null, 'the slot of 100 is due at 100');
    t.strictEqual(slot._idleNext, second);
    t.strictEqual(second._idleNext, slot, 'and holds only the timer added after the clear');
    t.done();
  },
};
