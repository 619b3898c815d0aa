'use strict';
// ImmediateBlocks: which pending driver owns which queue entries, oldest block first; the
// newest block's count in its fields, the older ones' in the arrays.

const ImmediateBlocks = require('../../lib/immediate-blocks');

module.exports = {
  'blocks run oldest first, each with the entries it owned': function(t) {
    const b = new ImmediateBlocks();
    t.strictEqual(b.newest, null);
    t.equal(b.owned(), 0);
    b.push('d1', null, 1);
    b.grow();
    b.grow();
    b.push('d2', 'ctx', 1);
    b.grow();
    b.push('d3', null, 1);
    t.equal(b.length, 3);
    t.equal(b.owned(), 6);
    t.strictEqual(b.newest, 'd3');
    t.ok(b.isOldest('d1'));
    t.ok(!b.isOldest('d2'));
    t.strictEqual(b.oldestContext(), null);
    t.equal(b.shift(), 3);
    t.strictEqual(b.oldestContext(), 'ctx');
    t.equal(b.shift(), 2);
    t.equal(b.owned(), 1);
    t.equal(b.shift(), 1);
    t.equal(b.length, 0);
    t.strictEqual(b.newest, null);
    t.equal(b.owned(), 0);
    t.done();
  },

  'shrink takes only from the newest block, never below none': function(t) {
    const b = new ImmediateBlocks();
    t.equal(b.shrink(), false, 'no block');
    b.push('d1', null, 2);
    b.push('d2', null, 1);
    t.equal(b.shrink(), true);
    t.equal(b.shrink(), false, 'd2 owns none now: the tail is d1\'s');
    t.equal(b.owned(), 2);
    t.equal(b.shift(), 2);
    t.equal(b.shift(), 0);
    t.done();
  },

  'what a turn leaves goes to the oldest block': function(t) {
    const b = new ImmediateBlocks();
    b.push('d1', null, 1);
    b.addToOldest(4);
    t.equal(b.owned(), 5);
    b.push('d2', null, 1);
    b.addToOldest(2);
    t.equal(b.owned(), 8);
    t.equal(b.shift(), 7);
    t.equal(b.shift(), 1);
    t.done();
  },

  'an emptied FIFO reuses its room; forEachDriver visits the pending ones in order': function(t) {
    const b = new ImmediateBlocks();
    for (let round = 0; round < 3; round++) {
      b.push('a', null, 1);
      b.push('b', null, 1);
      const seen = [];
      b.forEachDriver((d) => seen.push(d));
      t.deepEqual(seen, ['a', 'b']);
      b.shift();
      b.shift();
      t.equal(b.head, 0);
    }
    t.ok(b.drivers.length <= 2, 'room for two blocks, kept');
    t.done();
  },
};
