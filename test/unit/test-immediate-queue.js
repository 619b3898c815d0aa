'use strict';
// ImmediateQueue: FIFO order across segment boundaries, pop of the newest entry, and that
// draining a large burst gives the segments back.

const ImmediateQueue = require('../../lib/immediate-queue');

const SEG = ImmediateQueue.SEGMENT_SIZE;

function segments(q) {
  let n = 0;
  for (let seg = q.head; seg !== null; seg = seg.next) n += 1;
  return n;
}

module.exports = {
  'shift returns entries in push order across segments': function(t) {
    const q = new ImmediateQueue();
    const n = SEG * 3 + 17;
    for (let i = 0; i < n; i++) q.push(i);
    t.equal(q.length, n);
    for (let i = 0; i < n; i++) t.equal(q.shift(), i);
    t.equal(q.length, 0);
    t.strictEqual(q.shift(), undefined);
    t.done();
  },

  'interleaved push and shift keep FIFO order': function(t) {
    const q = new ImmediateQueue();
    let next = 0;
    let expect = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 97; i++) q.push(next++);
      for (let i = 0; i < 60; i++) t.equal(q.shift(), expect++);
    }
    while (q.length > 0) t.equal(q.shift(), expect++);
    t.equal(expect, next);
    t.done();
  },

  'last and pop take back the newest entry only': function(t) {
    const q = new ImmediateQueue();
    t.strictEqual(q.last(), undefined);
    q.push('a');
    q.push('b');
    t.equal(q.last(), 'b');
    q.pop();
    t.equal(q.length, 1);
    t.equal(q.last(), 'a');
    q.push('c');
    t.equal(q.shift(), 'a');
    t.equal(q.shift(), 'c');
    t.strictEqual(q.shift(), undefined);
    t.done();
  },

  'pop across a segment boundary leaves the queue consistent': function(t) {
    const q = new ImmediateQueue();
    for (let i = 0; i < SEG + 1; i++) q.push(i);
    q.pop();                          // the only entry of the second segment
    t.equal(q.length, SEG);
    t.strictEqual(q.last(), SEG - 1, 'the newest entry is the previous segment\'s last');
    t.equal(segments(q), 1, 'the emptied segment left the chain');
    q.push('x');
    t.equal(q.last(), 'x');
    for (let i = 0; i < SEG; i++) t.equal(q.shift(), i);
    t.equal(q.shift(), 'x');
    t.equal(q.length, 0);
    t.done();
  },

  'last and pop walk back through several segments, also after shifts': function(t) {
    const q = new ImmediateQueue();
    const n = SEG * 3 + 5;
    for (let i = 0; i < n; i++) q.push(i);
    for (let i = 0; i < 10; i++) t.equal(q.shift(), i);
    // pop everything but the oldest 7: last() is always the newest entry left
    for (let newest = n - 1; newest >= 17; newest--) {
      if (q.last() !== newest) { t.equal(q.last(), newest); break; }
      q.pop();
    }
    t.equal(q.length, 7);
    t.equal(q.last(), 16);
    t.equal(segments(q), 1);
    // the head segment, partly shifted, takes new entries behind its old ones
    for (let i = 0; i < SEG; i++) q.push('n' + i);
    for (let i = 10; i < 17; i++) t.equal(q.shift(), i);
    for (let i = 0; i < SEG; i++) t.equal(q.shift(), 'n' + i);
    t.strictEqual(q.last(), undefined);
    t.done();
  },

  'a drained burst keeps at most MAX_SPARES segments for reuse': function(t) {
    const q = new ImmediateQueue();
    const burst = SEG * (ImmediateQueue.MAX_SPARES + 20);
    for (let i = 0; i < burst; i++) q.push(i);
    t.ok(segments(q) >= ImmediateQueue.MAX_SPARES + 20);
    while (q.length > 0) q.shift();
    q.push(1);
    t.ok(segments(q) <= 2, 'at most the current segment and the next');
    t.equal(q.spareCount, ImmediateQueue.MAX_SPARES);
    let spares = 0;
    for (let seg = q.spares; seg !== null; seg = seg.next) { spares += 1; t.equal(seg.count, 0); }
    t.equal(spares, ImmediateQueue.MAX_SPARES);
    // a second burst of the same size reuses them in order
    for (let i = 0; i < burst; i++) q.push(i);
    t.equal(q.shift(), 1);
    for (let i = 0; i < burst; i++) t.equal(q.shift(), i);
    t.done();
  },

  'shifted slots are cleared so entries can be collected': function(t) {
    const q = new ImmediateQueue();
    const seg = q.head;
    q.push({});
    q.shift();
    t.strictEqual(seg.slots[0], undefined);
    t.done();
  },
};
