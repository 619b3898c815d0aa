'use strict';
// lib/timers.js: the public functions' argument handling (qtimers/standalone): `this` and the
// arguments a callback gets, what a delay that is not a valid number becomes, Node's TypeError
// for a non-function callback, and what clearTimeout / clearInterval / clearImmediate accept.

const assert = require('assert');
const util = require('util');
const qt = require('../../lib/standalone');

module.exports = {
  'setTimeout': {
    'fires once, with this = its handle and the arguments given': function(t) {
      const calls = [];
      const h0 = qt.setTimeout(function() { calls.push([this, Array.from(arguments)]); }, 1);
      const h1 = qt.setTimeout(function(a) { calls.push([this, Array.from(arguments)]); }, 1, 'a');
      const h3 = qt.setTimeout(function() { calls.push([this, Array.from(arguments)]); }, 1, 1, 2, 3);
      const h5 = qt.setTimeout(function() { calls.push([this, Array.from(arguments)]); }, 1, 1, 2, 3, 4, 5);
      const h2 = qt.setTimeout(function() { calls.push([this, Array.from(arguments)]); }, 1, 'x', undefined);
      qt.setTimeout(function() {
        t.equal(calls.length, 5);
        t.strictEqual(calls[0][0], h0); t.deepEqual(calls[0][1], []);
        t.strictEqual(calls[1][0], h1); t.deepEqual(calls[1][1], ['a']);
        t.strictEqual(calls[2][0], h3); t.deepEqual(calls[2][1], [1, 2, 3]);
        t.strictEqual(calls[3][0], h5); t.deepEqual(calls[3][1], [1, 2, 3, 4, 5]);
        t.strictEqual(calls[4][0], h2); t.strictEqual(calls[4][1].length, 2); t.deepEqual(calls[4][1], ['x', undefined]);
        t.done();
      }, 5);
    },

    'a delay that is not a valid number runs at MIN_TIMEOUT': function(t) {
      const inputs = [undefined, null, true, false, '', [], {}, NaN, -Infinity, -10, -0.5, 0, 0.5, '3', 1.5];
      let fired = 0;
      for (const value of inputs) {
        const h = qt.setTimeout(() => { fired += 1; }, value);
        t.ok(h._idleTimeout >= 1, `delay ${util.inspect(value)} becomes ${h._idleTimeout}`);
      }
      qt.setTimeout(() => { t.equal(fired, inputs.length); t.done(); }, 10);
    },

    'a non-function callback throws Node\'s own TypeError': function(t) {
      for (const bad of ['foo', { foo: 'bar' }, undefined, null, false, 1]) {
        let native;
        try { require('timers').setTimeout(bad, 0); } catch (err) { native = err; }
        for (const fn of [qt.setTimeout, qt.setInterval, qt.setImmediate]) {
          t.throws(() => fn(bad, 0), (err) => {
            assert.ok(err instanceof TypeError);
            assert.strictEqual(err.code, 'ERR_INVALID_ARG_TYPE');
            assert.strictEqual(err.message, native.message);
            return true;
          });
        }
      }
      t.done();
    },
  },

  'clearTimeout': {
    'clears by numeric id and by its string form': function(t) {
      const a = qt.setTimeout(() => t.fail('fired'), 1);
      const b = qt.setTimeout(() => t.fail('fired'), 1);
      const c = qt.setInterval(() => t.fail('fired'), 1);
      t.equal(typeof +a, 'number');
      t.equal(`${b}`, String(b[Symbol.toPrimitive]()));
      qt.clearTimeout(+a);
      qt.clearTimeout(`${b}`);
      qt.clearInterval(+c);
      qt.setTimeout(() => t.done(), 5);
    },

    'ignores null, undefined, foreign objects and unknown ids': function(t) {
      for (const value of [null, undefined, {}, [], 12345678, '12345678', 'x', true, () => {}]) {
        qt.clearTimeout(value);
        qt.clearInterval(value);
      }
      // (Node's clearImmediate throws for a truthy primitive: test-errors.js compares those)
      for (const value of [null, undefined, 0, '', {}, []]) qt.clearImmediate(value);
      t.done();
    },

    'clearTimeout and clearInterval are interchangeable': function(t) {
      const i = qt.setInterval(() => t.fail('fired'), 1);
      const o = qt.setTimeout(() => t.fail('fired'), 1);
      qt.clearTimeout(i);
      qt.clearInterval(o);
      qt.setTimeout(() => t.done(), 5);
    },
  },

  'MIN_TIMEOUT and MAX_TIMEOUT': {
    tearDown: function(done) { qt.setTimeout.MIN_TIMEOUT = 1; qt.setTimeout.MAX_TIMEOUT = 2 ** 31 - 1; done(); },

    'a delay outside the range becomes MIN_TIMEOUT': function(t) {
      qt.setTimeout.MAX_TIMEOUT = 1000;
      qt.setTimeout.MIN_TIMEOUT = 3;
      const over = qt.setTimeout(() => {}, 5000);
      const under = qt.setTimeout(() => {}, 2);
      const inside = qt.setTimeout(() => {}, 500);
      t.equal(over._idleTimeout, 3);
      t.equal(under._idleTimeout, 3);
      t.equal(inside._idleTimeout, 500);
      [over, under, inside].forEach(qt.clearTimeout);
      // (the knobs' own range errors are test-knobs.js's, compared with Node's)
      t.done();
    },
  },
};
