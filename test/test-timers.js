'use strict';
// The timer functions and handles, used without installing (qtimers/standalone): what fires,
// when relative to what, with which `this` and arguments, and what clearing/refresh/ref do.

const assert = require('assert');
const util = require('util');
const qt = require('../lib/standalone');
const child = require('./helpers/child');

const nativeSetImmediate = require('timers').setImmediate;

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

    'runs timers in expiry order, equal expiry in creation order': function(t) {
      const order = [];
      qt.setTimeout(() => order.push('c30'), 30);
      qt.setTimeout(() => order.push('a10'), 10);
      qt.setTimeout(() => order.push('b10'), 10);
      qt.setTimeout(() => order.push('d20'), 20);
      qt.setTimeout(() => {
        t.deepEqual(order, ['a10', 'b10', 'd20', 'c30']);
        t.done();
      }, 40);
    },

    'never fires before its delay has passed': function(t) {
      const { performance } = require('perf_hooks');
      const delays = [1, 2, 5, 10, 25];
      let left = delays.length;
      for (const delay of delays) {
        const start = performance.now();
        qt.setTimeout(() => {
          // libuv and qtimers count whole milliseconds, as Node does: allow its 1 ms rounding
          t.ok(performance.now() - start >= delay - 1, `${delay} ms timer fired after ${performance.now() - start} ms`);
          if (--left === 0) t.done();
        }, delay);
      }
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
    'a cleared timeout never fires, and its callback and arguments are released': function(t) {
      const h = qt.setTimeout(() => t.fail('cleared timer fired'), 1, { big: 'argument' });
      qt.clearTimeout(h);
      t.strictEqual(h._onTimeout, null);
      t.strictEqual(h._timerArgs, undefined);
      t.strictEqual(h._destroyed, true);
      qt.setTimeout(() => t.done(), 5);
    },

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

    'clearing a timer due in the same batch from an earlier callback stops it': function(t) {
      let second;
      qt.setTimeout(() => qt.clearTimeout(second), 2);
      second = qt.setTimeout(() => t.fail('cleared in the same batch but fired'), 2);
      qt.setTimeout(() => t.done(), 10);
    },

    'close() and Symbol.dispose clear too': function(t) {
      const a = qt.setTimeout(() => t.fail('fired'), 1);
      t.strictEqual(a.close(), a);
      const b = qt.setInterval(() => t.fail('fired'), 1);
      if (Symbol.dispose) b[Symbol.dispose](); else b.close();
      const c = qt.setImmediate(() => t.fail('fired'));
      if (Symbol.dispose) c[Symbol.dispose](); else qt.clearImmediate(c);
      t.strictEqual(a._destroyed, true);
      t.strictEqual(b._destroyed, true);
      t.strictEqual(c._destroyed, true);
      qt.setTimeout(() => t.done(), 5);
    },
  },

  'setInterval': {
    'repeats until cleared, from inside its callback': function(t) {
      let n = 0;
      const h = qt.setInterval(function() {
        t.strictEqual(this, h);
        if (++n === 4) {
          qt.clearInterval(h);
          qt.setTimeout(() => { t.equal(n, 4); t.strictEqual(h._destroyed, true); t.done(); }, 10);
        }
      }, 1);
      t.equal(h._repeat, 1);
    },

    'a timeout becomes an interval when _repeat is set (as Node allows)': function(t) {
      let n = 0;
      const h = qt.setTimeout(() => {
        if (h._repeat) { qt.clearInterval(h); t.equal(++n, 2); t.done(); return; }
        n += 1;
        h._repeat = 1;
      }, 1);
      t.strictEqual(h._repeat, null);
    },
  },

  'refresh': {
    'restarts a pending timer from now': function(t) {
      const { performance } = require('perf_hooks');
      let last = performance.now();
      const h = qt.setTimeout(() => {
        t.ok(performance.now() - last >= 19, 'fired 20 ms after the last refresh');
        t.done();
      }, 20);
      let n = 0;
      const iv = qt.setInterval(() => {
        h.refresh();
        last = performance.now();
        if (++n === 3) qt.clearInterval(iv);
      }, 5);
    },

    'revives a timer that already fired, but not a cleared one': function(t) {
      let fired = 0;
      const h = qt.setTimeout(() => {
        fired += 1;
        if (fired === 1) qt.setTimeout(() => h.refresh(), 1);
      }, 1);
      const cleared = qt.setTimeout(() => t.fail('cleared timer revived'), 1);
      qt.clearTimeout(cleared);
      cleared.refresh();
      qt.setTimeout(() => { t.equal(fired, 2); t.done(); }, 20);
    },

    'refresh from its own callback runs it again later, once': function(t) {
      let calls = 0;
      const h = qt.setTimeout(() => { if (++calls === 1) h.refresh(); }, 1);
      qt.setTimeout(() => { t.equal(calls, 2); t.done(); }, 15);
    },
  },

  'hasRef after clearing or running, as Node': function(t) {
    const h = qt.setTimeout(() => {}, 1000);
    qt.clearTimeout(h);
    t.strictEqual(h.hasRef(), true, 'a cleared timeout keeps its ref flag');
    const i = qt.setImmediate(() => {});
    qt.clearImmediate(i);
    i.ref();
    t.strictEqual(i.hasRef(), false, 'ref() on a cleared immediate does nothing');
    qt.setImmediate(function() {
      this.ref();
      t.strictEqual(this.hasRef(), false, 'ref() on a running immediate does nothing');
      t.done();
    });
  },

  'clearing immediates older-first in a synchronous loop holds no queue space': function(t) {
    const before = require('../lib/scheduler').stats().immediates;
    for (let k = 0; k < 5000; k++) {
      const a = qt.setImmediate(() => t.fail('ran'));
      const b = qt.setImmediate(() => t.fail('ran'));
      qt.clearImmediate(a);
      qt.clearImmediate(b);
    }
    t.equal(require('../lib/scheduler').stats().immediates, before);
    qt.setImmediate(() => t.done());
  },

  'an immediate without arguments is two fields, and stays so through clear and run': function(t) {
    // in a fresh process: once any test here has used async context, every handle carries it
    const res = child.runJson(`
      const plain = setImmediate(() => {});
      const withArg = setImmediate((x) => { out.arg = x; }, 7);
      const ran = setImmediate(() => {});
      const out = { plain: Object.keys(plain), withArg: Object.keys(withArg), answersArgv: '_argv' in plain && '_asyncContext' in plain,
        sameClass: withArg instanceof plain.constructor };
      clearImmediate(plain);
      out.cleared = Object.keys(plain);
      setImmediate(() => {
        out.ran = Object.keys(ran);
        out.argvAfterRun = withArg._argv === undefined;
        console.log(JSON.stringify(out));
      });
    `);
    t.strictEqual(res.status, 0, res.stderr);
    const out = res.json;
    t.deepEqual(out.plain, ['_onImmediate', '_flags']);
    t.deepEqual(out.withArg, ['_onImmediate', '_flags', '_argv', '_asyncContext']);
    t.strictEqual(out.answersArgv, true, 'answers the subclass fields from its prototype');
    t.strictEqual(out.sameClass, true, 'one class for clearImmediate');
    t.deepEqual(out.cleared, ['_onImmediate', '_flags'], 'clearing adds no fields');
    t.deepEqual(out.ran, ['_onImmediate', '_flags'], 'running adds no fields');
    t.strictEqual(out.arg, 7, 'the argument arrives');
    t.strictEqual(out.argvAfterRun, true, 'a run immediate lets its arguments go');
    t.done();
  },

  'ref, unref, hasRef': {
    'chain, report their state, and tolerate a foreign this': function(t) {
      const h = qt.setTimeout(() => {}, 1);
      t.strictEqual(h.hasRef(), true);
      t.strictEqual(h.unref().ref().unref(), h);
      t.strictEqual(h.hasRef(), false);
      h.ref();
      t.strictEqual(h.hasRef(), true);
      h.unref.call({});
      h.ref.call({});
      const i = qt.setImmediate(() => {});
      t.strictEqual(i.hasRef(), true);
      t.strictEqual(i.unref(), i);
      t.strictEqual(i.hasRef(), false);
      t.strictEqual(i.ref(), i);
      t.strictEqual(i.hasRef(), true);
      qt.clearImmediate(i);
      qt.clearTimeout(h);
      t.done();
    },
  },

  'setImmediate': {
    'runs in FIFO order with this = its handle and the arguments given': function(t) {
      const got = [];
      const handles = [];
      for (let i = 0; i < 7; i++) {
        const args = [];
        for (let k = 0; k < i; k++) args.push(k);
        handles.push(qt.setImmediate(function() { got.push([this, Array.from(arguments)]); }, ...args));
      }
      qt.setImmediate(() => {
        t.equal(got.length, 7);
        for (let i = 0; i < 7; i++) {
          t.strictEqual(got[i][0], handles[i]);
          t.deepEqual(got[i][1], Array.from({ length: i }, (_, k) => k));
        }
        t.done();
      });
    },

    'clearImmediate stops it, also from an earlier callback in the same turn': function(t) {
      let b;
      qt.setImmediate(() => qt.clearImmediate(b));
      b = qt.setImmediate(() => t.fail('cleared immediate ran'));
      const c = qt.setImmediate(() => t.fail('cleared immediate ran'));
      qt.clearImmediate(c);
      t.strictEqual(c._onImmediate, null);
      qt.setImmediate(() => t.done());
    },

    'the nextTick and microtask queues drain between two callbacks': function(t) {
      const log = [];
      qt.setImmediate(() => {
        log.push('a');
        process.nextTick(() => log.push('a-tick'));
        Promise.resolve().then(() => log.push('a-promise'));
      });
      qt.setImmediate(() => log.push('b'));
      qt.setTimeout(() => {
        log.push('t1');
        process.nextTick(() => log.push('t1-tick'));
        Promise.resolve().then(() => log.push('t1-promise'));
      }, 1);
      qt.setTimeout(() => log.push('t2'), 1);
      qt.setTimeout(() => {
        // whether the timers' turn comes before the immediates' depends on when the loop wakes
        t.deepEqual(log.filter((e) => e[0] !== 't'), ['a', 'a-tick', 'a-promise', 'b']);
        t.deepEqual(log.filter((e) => e[0] === 't'), ['t1', 't1-tick', 't1-promise', 't2']);
        t.done();
      }, 10);
    },
  },

  'maxTickDepth': {
    // A native immediate queued right after the first callback tells which turn a callback
    // queued by that first callback ran in: before the native one = the same turn.
    // The count tests turn the time bound off (a loaded machine could end a 1 ms turn early).
    setUp: function(done) { qt.setImmediate.maxTurnMs = Infinity; done(); },
    tearDown: function(done) { qt.setImmediate.maxTickDepth = -1000; qt.setImmediate.maxTurnMs = 1; done(); },

    'the defaults: up to 1000 new ones, for at most 1 ms': function(t) {
      qt.setImmediate.maxTurnMs = 1;
      t.equal(qt.setImmediate.maxTickDepth, -1000);
      t.equal(qt.setImmediate.maxTurnMs, 1);
      t.done();
    },

    'a young turn runs new immediates; one older than maxTurnMs leaves them to the next turn': function(t) {
      qt.setImmediate.maxTurnMs = 1;
      // how many of a chain run before a native immediate queued by the chain's first callback
      const chainBeforeNative = (work, done) => {
        const log = [];
        let depth = 0;
        function chain() {
          const end = performance.now() + work;
          while (performance.now() < end);
          log.push('c');
          if (++depth < 20) qt.setImmediate(chain);
        }
        qt.setImmediate(() => { chain(); nativeSetImmediate(() => log.push('native')); });
        qt.setTimeout(() => done(log.indexOf('native')), 100);
      };
      // short callbacks: several run in the first turn (three tries: a 1 ms stall of a loaded
      // machine right after the first one could end one turn early)
      let tries = 0;
      const short = () => chainBeforeNative(0, (n) => {
        if (n <= 1 && ++tries < 3) return short();
        t.ok(n > 1, `${n} of a chain of quick immediates ran in the first turn`);
        // 3 ms callbacks: the turn is old after the first, so one per turn, as natively
        chainBeforeNative(3, (m) => {
          t.equal(m, 1, 'one 3 ms immediate per turn');
          t.done();
        });
      });
      short();
    },

    'maxTurnMs 0 runs no new immediates in the turn (Node\'s rule)': function(t) {
      qt.setImmediate.maxTurnMs = 0;
      const log = [];
      qt.setImmediate(() => {
        log.push('a');
        qt.setImmediate(() => log.push('a-child'));
        nativeSetImmediate(() => log.push('native'));
      });
      qt.setImmediate(() => log.push('b'));
      qt.setTimeout(() => { t.deepEqual(log, ['a', 'b', 'native', 'a-child']); t.done(); }, 10);
    },

    '0 runs exactly the callbacks queued before the turn (Node)': function(t) {
      qt.setImmediate.maxTickDepth = 0;
      const log = [];
      qt.setImmediate(() => {
        log.push('a');
        qt.setImmediate(() => log.push('a-child'));
        nativeSetImmediate(() => log.push('native'));
      });
      qt.setImmediate(() => log.push('b'));
      qt.setTimeout(() => { t.deepEqual(log, ['a', 'b', 'native', 'a-child']); t.done(); }, 10);
    },

    '-N runs the queued ones plus up to N new ones': function(t) {
      qt.setImmediate.maxTickDepth = -2;
      const log = [];
      let depth = 0;
      function chain() { log.push('c' + depth); if (++depth < 5) qt.setImmediate(chain); }
      qt.setImmediate(() => { log.push('a'); nativeSetImmediate(() => log.push('native')); });
      qt.setImmediate(chain);
      qt.setTimeout(() => { t.deepEqual(log, ['a', 'c0', 'c1', 'c2', 'native', 'c3', 'c4']); t.done(); }, 10);
    },

    'N > 0 runs up to N callbacks, new ones included': function(t) {
      qt.setImmediate.maxTickDepth = 3;
      const log = [];
      let depth = 0;
      function chain() { log.push('c' + depth); if (++depth < 5) qt.setImmediate(chain); }
      qt.setImmediate(() => { chain(); nativeSetImmediate(() => log.push('native')); });
      qt.setTimeout(() => { t.deepEqual(log, ['c0', 'c1', 'c2', 'native', 'c3', 'c4']); t.done(); }, 10);
    },

    '1 runs one callback per turn': function(t) {
      qt.setImmediate.maxTickDepth = 1;
      const log = [];
      qt.setImmediate(() => { log.push('a'); nativeSetImmediate(() => log.push('native')); });
      qt.setImmediate(() => log.push('b'));
      qt.setTimeout(() => { t.deepEqual(log, ['a', 'native', 'b']); t.done(); }, 10);
    },

    'cleared entries cost no budget': function(t) {
      qt.setImmediate.maxTickDepth = 2;
      const log = [];
      for (let i = 0; i < 50; i++) qt.clearImmediate(qt.setImmediate(() => log.push('cleared')));
      const keep = [qt.setImmediate(() => log.push('x'))];
      for (let i = 0; i < 50; i++) { keep.push(qt.setImmediate(() => log.push('cleared'))); }
      for (let i = 1; i < keep.length; i++) qt.clearImmediate(keep[i]);
      qt.setImmediate(() => { log.push('y'); nativeSetImmediate(() => log.push('native')); });
      qt.setTimeout(() => { t.deepEqual(log, ['x', 'y', 'native']); t.done(); }, 10);
    },

  },

  'MIN_TIMEOUT and MAX_TIMEOUT': {
    tearDown: function(done) { qt.setTimeout.MIN_TIMEOUT = 1; qt.setTimeout.MAX_TIMEOUT = 2 ** 31 - 1; done(); },

    'default to Node\'s limits': function(t) {
      t.equal(qt.setTimeout.MIN_TIMEOUT, 1);
      t.equal(qt.setTimeout.MAX_TIMEOUT, 2 ** 31 - 1);
      t.done();
    },

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
      t.throws(() => { qt.setTimeout.MIN_TIMEOUT = -1; }, RangeError);
      t.throws(() => { qt.setTimeout.MAX_TIMEOUT = 2 ** 31; }, RangeError);
      t.done();
    },
  },

  'exactStart': {
    tearDown: function(done) { qt.setTimeout.exactStart = true; done(); },

    'by default every timer is stamped with the time of its call; false shares one reading per section': function(t) {
      const busy = (ms) => { const end = Date.now() + ms; while (Date.now() < end); };
      t.strictEqual(qt.setTimeout.exactStart, true, 'the default');
      const a = qt.setTimeout(() => {}, 100);
      busy(5);
      const b = qt.setTimeout(() => {}, 100);
      t.ok(b._idleStart >= a._idleStart + 4, `stamped at its call (${b._idleStart - a._idleStart} ms later)`);
      b.refresh();
      qt.setTimeout.exactStart = false;
      const c = qt.setTimeout(() => {}, 100);
      busy(5);
      const d = qt.setTimeout(() => {}, 100);
      t.equal(d._idleStart, c._idleStart, 'exactStart = false: one section, one reading');
      [a, b, c, d].forEach(qt.clearTimeout);
      t.done();
    },
  },

  'util.promisify': {
    'promisified setTimeout and setImmediate resolve with the value, as native': async function(t) {
      const v1 = await util.promisify(qt.setTimeout)(2, 'value');
      const v2 = await util.promisify(qt.setImmediate)('other');
      t.equal(v1, 'value');
      t.equal(v2, 'other');
      t.done();
    },
  },

  'currentTimestamp': {
    'is epoch milliseconds within 1 ms of Date.now()': function(t) {
      for (let i = 0; i < 200; i++) {
        const before = Date.now();
        const ts = qt.currentTimestamp();
        const after = Date.now();
        t.ok(Number.isInteger(ts));
        t.ok(ts >= before - 1 && ts <= after + 1, `${ts} not within 1 ms of [${before}, ${after}]`);
      }
      qt.setTimeout(() => {
        const before = Date.now();
        const ts = qt.currentTimestamp();
        t.ok(ts >= before - 1 && ts <= Date.now() + 1);
        t.done();
      }, 3);
    },
  },

  'util.inspect shows the kind, delay and ref state': function(t) {
    const h = qt.setTimeout(function work() {}, 1234).unref();
    const s = util.inspect(h);
    t.ok(/^Timeout /.test(s), s);
    t.ok(/delay: 1234/.test(s), s);
    t.ok(/ref: false/.test(s), s);
    t.ok(/pending/.test(s), s);
    qt.clearTimeout(h);
    t.ok(/cleared/.test(util.inspect(h)));
    const i = qt.setImmediate(() => {});
    t.ok(/^Immediate .*pending/.test(util.inspect(i)), util.inspect(i));
    qt.clearImmediate(i);
    t.done();
  },
};
