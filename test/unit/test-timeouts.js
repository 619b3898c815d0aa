'use strict';
// lib/timeouts.js through the public functions (qtimers/standalone): the order timeouts run in,
// that none runs early, clearing, intervals, refresh() and what exactStart stamps a timer with.
// The order of a delay refreshed enough to become a ring (timeout-list.js), and of refresh()
// calls worked through in batches (refresh-batch.js), is compared with native Node's, running the
// same program both ways.

const qt = require('../../lib/standalone');
const child = require('../helpers/child');

// 40000 timeouts of one delay (enough for a ring), 3000 refresh() calls at random (enough to
// turn it into one), 500 clears, 3000 more refreshes (cleared ones' do nothing): prints the order
// they fire in, and whether a pending one names a slot number (qtimers' ring) or a neighbour.
const RING_ORDER_PROGRAM = `
const N = 40000;
const timers = [];
const order = [];
let seed = 7;
function random(n) { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; }
function fired(i) { order.push(i); }
for (let i = 0; i < N; i++) timers.push(setTimeout(fired, 300, i));
for (let k = 0; k < 3000; k++) timers[random(N)].refresh();
for (let k = 0; k < 500; k++) clearTimeout(timers[random(N)]);
for (let k = 0; k < 3000; k++) timers[random(N)].refresh();
const sample = timers.find((timer) => !timer._destroyed);
const ring = typeof sample._idleNext === 'number';
setTimeout(() => console.log(JSON.stringify({ ring, order })), 1500);
`;

// refresh() of a ring's timers is worked through in batches (lib/refresh-batch.js): the same kind of
// delay, with what could tell a batch from moves made at each call interleaved, in one
// synchronous section (2000 refreshes: more than one batch) and again from a timer callback:
// new timers of the same delay (they queue behind the timers refreshed before them), clears of
// refreshed timers, a delay changed after a refresh (the delay at the call counts) and before one
// (the timer moves to that delay, 1000 ms, far from the others' expiries so that no two lists
// tie), and refreshes of cleared and fired timers; and callbacks that refresh a timer due in
// their own drain.  Delays are changed only on timers never
// cleared: Node marks a cleared timer by its delay (-1), qtimers by a flag, so a delay set on a
// cleared timer is another question.  Prints the order of firing, how many
// refreshed cleared timers kept their _idleStart, and whether the delay is a ring.
const BATCH_ORDER_PROGRAM = `
const N = 40000;
const HALF = N / 2;     // clears in the first half, delay changes in the second
const timers = [];
const order = [];
let seed = 11;
function random(n) { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; }
function fired(i) {
  order.push(i);
  // a timer most likely due in this same drain: it must wait its delay again
  if (i % 97 === 0 && i + 1 < N) timers[i + 1].refresh();
}
for (let i = 0; i < N; i++) timers.push(setTimeout(fired, 300, i));
for (let k = 0; k < 3000; k++) timers[random(N)].refresh();
const fired0 = setTimeout(fired, 1, -1);
let keptStart = 0;
function interleaved(count, base) {
  for (let k = 0; k < count; k++) {
    timers[random(N)].refresh();
    if (k % 7 === 0) timers.push(setTimeout(fired, 300, base + k));
    if (k % 11 === 0) clearTimeout(timers[random(HALF)]);
    if (k % 13 === 0) { const t = timers[HALF + random(HALF)]; t.refresh(); t._idleTimeout = 350; }
    if (k % 17 === 0) { const t = timers[HALF + random(HALF)]; t._idleTimeout = 1000; t.refresh(); }
    if (k % 19 === 0) {
      const t = timers[random(HALF)];
      clearTimeout(t);
      const before = t._idleStart;
      t.refresh();
      if (t._idleStart === before) keptStart += 1;
    }
  }
}
interleaved(2000, N);
// the second section must run before any of the 300 ms timers is due (a timer it revives or
// clears must not have fired yet): under heavy load it can come late, which the run reports
let late = false;
setTimeout(() => {
  late = order.some((i) => i >= 0);
  fired0.refresh();
  interleaved(1500, 2 * N);
}, 100);
const ring = typeof timers.find((timer) => !timer._destroyed)._idleNext === 'number';
// at exit, when every timer has fired (under load the last ones can fire seconds late), written
// at once: a large console.log to a pipe at exit is cut short
process.on('exit', () => require('fs').writeSync(1, JSON.stringify({ ring, order, keptStart, late }) + require('os').EOL));
`;

/* run `program` natively and with qtimers: both exit 0, fire as many timers in the same order,
   and the qtimers run's delay is a ring; their printed JSON */
function runBothInOrder(t, program) {
  let native, ours;
  // Where the two runs differ, the pair is run again, up to 3 times: under load a drain of 40k
  // callbacks takes long enough that a timer refreshed late in it (its start is the time of the
  // call) can tie with another delay's timers, natively as well as with qtimers, and a section
  // can come after the first timers were due (`late`).  A difference of qtimers' own shows in
  // every pair; on a quiet machine the first pair matches.
  for (let tries = 0; tries < 3; tries++) {
    native = child.runJson(program, { qtimers: false, timeout: 60000 });
    ours = child.runJson(program, { timeout: 60000 });
    if (native.json && ours.json && !native.json.late && !ours.json.late &&
        JSON.stringify(native.json.order) === JSON.stringify(ours.json.order)) break;
  }
  t.ok(!native.json.late && !ours.json.late, 'both runs on time');
  t.equal(native.status, 0, native.stderr);
  t.equal(ours.status, 0, ours.stderr);
  t.strictEqual(ours.json.ring, true, 'the delay became a ring');
  const expected = native.json.order;
  const got = ours.json.order;
  t.ok(expected.length > 39000, expected.length + ' fired natively');
  t.equal(got.length, expected.length, 'as many fired');
  let first = -1;
  for (let i = 0; i < expected.length && first < 0; i++) if (got[i] !== expected[i]) first = i;
  t.equal(first, -1, 'the same order' +
    (first < 0 ? '' : ` (first difference at ${first}: ${expected[first]} natively, ${got[first]} with qtimers)`));
  return { native: native.json, ours: ours.json };
}

// Timeouts due when a synchronous section ends (armed, then 6 ms of work) against the immediates
// and I/O that natively follow, armed from each kind of section, with a later timer pending
// ('pending') or not: prints the callbacks in the order they ran, and whether qtimers is in place.
// 'overrun': B, armed before A's callback, falls due while A's callback works.
const DUE_AT_END_PROGRAM = `
const fs = require('fs');
const net = require('net');
const out = [];
let log = (s) => out.push(s);
function busy(ms) { const end = Date.now() + ms + 1; while (Date.now() < end); }
process.on('exit', () => console.log(JSON.stringify({ installed: 'exactStart' in setTimeout, out })));
const [name, pending, hooks] = process.argv.slice(1);
// a program's own async hook, or OpenTelemetry's hook-based context manager: the case starts
// inside a context, and each callback logs the context it sees
let inContext = (fn) => fn();
if (hooks === 'hook') require('async_hooks').createHook({ init() {} }).enable();
if (hooks === 'otel') {
  const api = require(require.resolve('@opentelemetry/api', { paths: [process.cwd()] }));
  const { AsyncHooksContextManager } =
    require(require.resolve('@opentelemetry/context-async-hooks', { paths: [process.cwd()] }));
  api.context.setGlobalContextManager(new AsyncHooksContextManager().enable());
  const key = api.createContextKey('case');
  log = (s) => out.push(s + ' in ' + api.context.active().getValue(key));
  inContext = (fn) => api.context.with(api.ROOT_CONTEXT.setValue(key, name), fn);
}
function body() {
  setImmediate(() => { log('immediate'); setImmediate(() => log('immediate 2')); });
  setTimeout(() => log('timeout 0'), 0);
  setTimeout(() => log('timeout 2'), 2);
  busy(6);
}
if (pending === 'pending') setTimeout(() => log('later'), 300);
inContext(() => ({
  main() { body(); },
  immediate() { setImmediate(body); },
  timeout() { setTimeout(body, 1); },
  nextTick() { process.nextTick(body); },
  promise() { Promise.resolve().then(body); },
  readFile() { fs.readFile(require('path').join(process.cwd(), 'package.json'), body); },
  socket() {
    const server = net.createServer((s) => s.end('x'));
    server.listen(0, '127.0.0.1', () => {
      const c = net.connect(server.address().port, '127.0.0.1');
      c.on('data', () => { body(); c.destroy(); server.close(); });
    });
  },
  timerArmsLater() { setTimeout(() => { setTimeout(() => log('later'), 300); body(); }, 1); },
  immediateArmsLater() { setImmediate(() => { setTimeout(() => log('later'), 300); body(); }); },
  overrun() {
    setTimeout(() => {
      log('A');
      setImmediate(() => { log('immediate'); setImmediate(() => log('immediate 2')); });
      busy(60);
    }, 1);
    setTimeout(() => log('B'), 30);
  },
})[name]());
`;

/*
 * DUE_AT_END_PROGRAM with `args`, natively twice (they must agree: only what is deterministic
 * natively is compared) and with qtimers twice (the old late re-arm lost the order in some runs
 * only).  Under load a timer can fire late enough, natively too, to change the order (overrun's
 * A 29 ms late runs B with it): a set that differs is run again, up to 3 times; a difference of
 * qtimers' own shows in every set.
 */
function compareDueAtEnd(t, args) {
  const label = args.join(' ');
  let native;
  let ours;
  const out = (res) => JSON.stringify(res.json && res.json.out);
  const agree = () => native.concat(ours).every((res) => out(res) === out(native[0]));
  for (let set = 0; set < 3 && (set === 0 || !agree()); set++) {
    native = [1, 2].map(() => child.runJson(DUE_AT_END_PROGRAM, { qtimers: false, args }));
    ours = [1, 2].map(() => child.runJson(DUE_AT_END_PROGRAM, { args }));
  }
  native.forEach((res) => t.strictEqual(res.status, 0, res.stderr));
  t.deepEqual(native[1].json.out, native[0].json.out, `${label}: native runs agree`);
  t.strictEqual(native[0].json.installed, false);
  ours.forEach((res, run) => {
    t.strictEqual(res.status, 0, res.stderr);
    t.strictEqual(res.json.installed, true, 'qtimers is in place');
    t.deepEqual(res.json.out, native[0].json.out, `${label}, run ${run + 1}`);
  });
}

module.exports = {
  'running': {
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
  },

  'clearing': {
    'a cleared timeout never fires, and its callback and arguments are released': function(t) {
      const h = qt.setTimeout(() => t.fail('cleared timer fired'), 1, { big: 'argument' });
      qt.clearTimeout(h);
      // what Node leaves there on this Node (null; undefined from Node 24 on)
      const timers = require('timers');
      const natural = timers.setTimeout(() => {}, 1);
      timers.clearTimeout(natural);
      t.strictEqual(h._onTimeout, natural._onTimeout);
      t.ok(!h._onTimeout, 'the callback is let go');
      t.strictEqual(h._timerArgs, undefined);
      t.strictEqual(h._destroyed, true);
      qt.setTimeout(() => t.done(), 5);
    },

    'clearing a timer due in the same batch from an earlier callback stops it': function(t) {
      let second;
      qt.setTimeout(() => qt.clearTimeout(second), 2);
      second = qt.setTimeout(() => t.fail('cleared in the same batch but fired'), 2);
      qt.setTimeout(() => t.done(), 10);
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

    'a timer cleared after it fired and then refreshed runs nothing, and keeps the process alive until it is due, as natively': function(t) {
      // Node's clearTimeout finds a fired timer destroyed and takes only its callback, so
      // refresh() arms it again: nothing runs, but the process waits for it
      const program = `
        const { performance } = require('perf_hooks');
        const out = { calls: 0 };
        const a = setTimeout(() => { out.calls++; }, 40);
        let refreshedAt = 0;
        setTimeout(() => {
          clearTimeout(a);
          a.refresh();
          refreshedAt = performance.now();
          out.hasRef = a.hasRef();
          out.destroyed = a._destroyed;
          out.delay = a._idleTimeout;
          out.callback = typeof a._onTimeout;
        }, 60);
        process.on('exit', () => {
          out.aliveUntilDue = performance.now() - refreshedAt >= 40 - 1;
          console.log(JSON.stringify(out));
        });
      `;
      const native = child.runJson(program, { qtimers: false });
      const ours = child.runJson(program, {});
      t.strictEqual(native.status, 0, native.stderr);
      t.strictEqual(ours.status, 0, ours.stderr);
      t.deepEqual(native.json, { calls: 1, hasRef: true, destroyed: false, delay: 40, callback: native.json.callback, aliveUntilDue: true });
      t.deepEqual(ours.json, native.json);
      t.done();
    },

    'refresh from its own callback runs it again later, once': function(t) {
      let calls = 0;
      const h = qt.setTimeout(() => { if (++calls === 1) h.refresh(); }, 1);
      qt.setTimeout(() => { t.equal(calls, 2); t.done(); }, 15);
    },
  },

  'a delay refreshed into a ring fires its timers in native Node\'s order': function(t) {
    const { native } = runBothInOrder(t, RING_ORDER_PROGRAM);
    t.strictEqual(native.ring, false);
    t.done();
  },

  'refresh() in batches keeps native Node\'s order, delays and starts': function(t) {
    const { native, ours } = runBothInOrder(t, BATCH_ORDER_PROGRAM);
    t.equal(ours.keptStart, native.keptStart, 'cleared timers keep their start, refreshed or not');
    t.ok(native.keptStart > 150, native.keptStart + ' cleared timers refreshed');
    t.done();
  },

  'a timeout due when a section ends runs in the first timers phase after it, as natively, wherever it was armed': function(t) {
    const cases = ['main', 'immediate', 'timeout', 'nextTick', 'promise', 'readFile', 'socket', 'timerArmsLater', 'immediateArmsLater', 'overrun'];
    for (const name of cases) {
      for (const pending of ['none', 'pending']) compareDueAtEnd(t, [name, pending]);
    }
    t.done();
  },

  'with a program\'s own async hook, or OpenTelemetry\'s AsyncHooksContextManager, a timeout due when a section ends runs in the first timers phase after it, in its context': function(t) {
    const cases = ['main', 'immediate', 'timeout', 'nextTick', 'promise', 'readFile', 'timerArmsLater', 'immediateArmsLater', 'overrun'];
    for (const hooks of ['hook', 'otel']) {
      for (const name of cases) compareDueAtEnd(t, [name, 'pending', hooks]);
    }
    t.done();
  },

  'the nextTick and microtask queues drain between two due timeouts, as natively': function(t) {
    // three timeouts due in one drain, each queueing a nextTick and a promise job
    const program = `
      const log = [];
      for (const name of ['A', 'B', 'C']) {
        setTimeout(() => {
          log.push(name);
          process.nextTick(() => log.push('tick ' + name));
          Promise.resolve().then(() => log.push('job ' + name));
        }, 2);
      }
      setTimeout(() => console.log(JSON.stringify({ installed: 'exactStart' in setTimeout, log })), 30);
    `;
    const native = child.runJson(program, { qtimers: false });
    const ours = child.runJson(program, {});
    t.strictEqual(native.status, 0, native.stderr);
    t.strictEqual(ours.status, 0, ours.stderr);
    t.deepEqual(native.json.log, ['A', 'tick A', 'job A', 'B', 'tick B', 'job B', 'C', 'tick C', 'job C']);
    t.strictEqual(ours.json.installed, true, 'qtimers is in place');
    t.deepEqual(ours.json.log, native.json.log);
    t.done();
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
};
