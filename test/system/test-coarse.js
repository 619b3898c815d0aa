'use strict';
// Coarse timers (lib/coarse.js: setTimeout.coarse, coarseFrom, QTIMERS_COARSE, qtimers.coarse()),
// against native Node running the same programs (test/fixtures/coarse/*):
//   - never early: every timer fires no sooner than its delay after its last arming call, read
//     before the call (elapsed >= delay - 1 ms); nothing lost, nothing cleared fires
//   - late by at most granularity(delay) + TAU + 1 ms beyond native, counted from the end of the
//     synchronous work that armed or refreshed it: the quantiles of each timer's lateness so
//     counted, less that bound, are native's own lateness quantiles or better (up to three
//     side-by-side pairs before a figure counts as differing)
//   - one delay fires in the order of the last arming or refreshing calls, the trap included (a
//     timer refreshed while in its slot, then a new one armed in the same section)
//   - ref, unref, hasRef, refresh, close, clear (by handle and by id), Symbol.toPrimitive,
//     intervals and timers/promises behave as natively; a process with only unref'd coarse
//     timers exits as natively, one with a referenced one stays until it fires
//   - the switch: QTIMERS_COARSE / QTIMERS_COARSE_FROM with -r qtimers, --import
//     qtimers/register and require('qtimers') on the first line; a bad value warns once
//     (QTIMERS_BAD_ENV) and is ignored
//   - coarse(timer) per timer, and its ERR_INVALID_ARG_TYPE; stats() keeps coarse timers apart
//   - memory per pending coarse timer is no more than per exact one

const path = require('path');
const qt = require('../../lib/standalone');
const child = require('../helpers/child');
const coarse = require('../../lib/coarse');

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'coarse');
const FROM = 100;                 // the fixtures' setTimeout.coarseFrom
const TAU = Math.max(1, coarse.granularity(FROM) / 2);
const PAIRS = 3;

/* the stated bound beyond native for a timer of `delay` (fixtures' coarseFrom) */
function bound(delay) {
  return coarse.granularity(delay) + TAU + 1;
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
}

/*
 * a never-early fixture's record: early ones, lost or doubled ones, and lateness less
 * `less(delay)`, from the arming call or, `fromSectionEnd`, from the end of its synchronous work
 */
function judge(record, less, fromSectionEnd) {
  const out = { early: [], wrong: 0, cleared: 0, late: [] };
  for (const [delay, armedAt, firedAt, fires, cleared, sectionEndedAt] of record) {
    if (cleared) {
      out.cleared += 1;
      if (fires !== 0) out.wrong += 1;
      continue;
    }
    if (fires !== 1) out.wrong += 1;
    const elapsed = firedAt - armedAt;
    if (elapsed < delay - 1) out.early.push({ delay, elapsed });
    out.late.push(firedAt - (fromSectionEnd ? sectionEndedAt : armedAt) - delay - less(delay));
  }
  out.late.sort((a, b) => a - b);
  return out;
}

/* the never-early fixture natively and with qtimers at once (seed `seed`); done({ native, qtimers }) */
function runPair(file, seed, done) {
  const pair = {};
  for (const impl of ['native', 'qtimers']) {
    const argv = impl === 'qtimers' ? ['-r', child.PRELOAD] : [];
    child.spawn(process.execPath, argv.concat([path.join(FIXTURES, file), String(seed)]), 30000, (r) => {
      pair[impl] = r;
      if (pair.native && pair.qtimers) done(pair);
    });
  }
}

function runFile(file, options) {
  return child.runFileJson(path.join(FIXTURES, file), options);
}

// the handle methods, natively and coarse: a log of what each did, by time-separated steps
const HANDLES_PROGRAM = `
setTimeout.coarse = true;
setTimeout.coarseFrom = 100;
const log = [];
const t0 = performance.now();
const a = setTimeout(() => log.push('a'), 200);
log.push(['hasRef', a.hasRef(), a.unref() === a, a.hasRef(), a.ref() === a, a.hasRef()]);
const b = setTimeout(() => log.push('b must not fire'), 200);
clearTimeout(b);
const c = setTimeout(() => log.push('c must not fire'), 200);
log.push(['close', c.close() === c, c._destroyed]);
const d = setTimeout(() => log.push('d must not fire'), 200);
const id = +d;
log.push(['id', typeof id, id === d[Symbol.toPrimitive]()]);
clearTimeout(id);
const e = setTimeout(() => log.push('e must not fire'), 200);
clearInterval(String(e[Symbol.toPrimitive]()));
let runs = 0;
const iv = setInterval(() => { runs += 1; if (runs === 3) { clearInterval(iv); log.push(['interval', runs, iv._destroyed]); } }, 150);
const f = setTimeout(() => {
  log.push(['f fired', f._destroyed]);
  f.refresh();
  log.push(['f revived', f._destroyed]);
  f._onTimeout = () => log.push('f again');
}, 300);
const g = setTimeout(() => {}, 120);
clearTimeout(g);
g.refresh();                      // a cleared one stays cleared
log.push(['g', g._destroyed]);
require('timers/promises').setTimeout(250, 'value').then((v) => log.push(['promise', v]));
const ac = new AbortController();
require('timers/promises').setTimeout(250, 'x', { signal: ac.signal }).catch((err) => log.push(['aborted', err.name]));
setTimeout(() => ac.abort(), 120);
const h = setTimeout(() => log.push(['h', performance.now() - t0 >= 400 - 1]), 400);
setTimeout(() => h.refresh(), 110);
// refreshed twice while it waits in its slot, then cleared, in one section: it never fires, and
// nothing restamps it after the clear
const k = setTimeout(() => log.push('k must not fire'), 200);
setTimeout(() => {
  k.refresh();
  k.refresh();
  clearTimeout(k);
  const start = k._idleStart;
  log.push(['k', k._destroyed, k.hasRef()]);
  setTimeout(() => log.push(['k start kept', k._idleStart === start]), 50);
}, 110);
setTimeout(() => console.log(JSON.stringify(log)), 1100);
`;

// how long a process with only one unref'd coarse 2000 ms timer takes to exit, or one with a
// referenced one (it must fire)
const EXIT_PROGRAM = `
setTimeout.coarse = true;
const t0 = performance.now();
const t = setTimeout(() => console.log(JSON.stringify({ fired: Math.round(performance.now() - t0) })), 2000);
if (process.argv.includes('unref')) t.unref();
setTimeout(() => t.refresh(), 100).unref();
process.on('exit', () => console.log(JSON.stringify({ exit: Math.round(performance.now() - t0) })));
`;

// what the switch left: the knobs, and whether a 300 ms timer (200 = QTIMERS_COARSE_FROM) is coarse
const SWITCH_CHECK = `
const api = require(ROOT + '/lib/standalone');
const t = setTimeout(() => {}, 300);
const s = api.stats();
clearTimeout(t);
console.log(JSON.stringify({ coarse: setTimeout.coarse, from: setTimeout.coarseFrom, pending: s.coarse.pending, installed: typeof t._flags === 'number' }));
`;

// many pending timers of 30 s: heap per timer, exact and coarse (node --expose-gc)
const MEMORY_PROGRAM = `
const api = require(ROOT);
const N = 100000;
function perTimer(on) {
  setTimeout.coarse = on;
  const list = [];
  global.gc(); global.gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < N; i++) list.push(setTimeout(() => {}, 30000));
  for (let i = 0; i < N; i += 3) list[i].refresh();
  return new Promise((resolve) => setTimeout(() => {
    global.gc(); global.gc();
    const bytes = (process.memoryUsage().heapUsed - before) / N;
    const pending = api.stats().coarse.pending;
    for (const t of list) clearTimeout(t);
    resolve({ bytes, pending });
  }, 60));
}
(async () => {
  const exact = await perTimer(false);
  const coarse = await perTimer(true);
  console.log(JSON.stringify({ exact, coarse }));
})();
`;

// the never-early pairs, run in before(): up to PAIRS, until the lateness is within the bound
const neverEarly = [];

function runNeverEarly(done) {
  runPair('never-early.js', neverEarly.length + 1, (pair) => {
    const native = child.lastJson(pair.native.out);
    const ours = child.lastJson(pair.qtimers.out);
    const result = { pair, native, ours, within: false };
    neverEarly.push(result);
    if (native && ours) {
      result.n = judge(native.record, () => 0, false);
      result.q = judge(ours.record, bound, true);
      // the bound, beyond native's own lateness (1 ms: the two runs' clocks are read apart)
      result.figures = [0.5, 0.9, 1].map((k) => [k, quantile(result.q.late, k), quantile(result.n.late, k)]);
      result.within = result.figures.every(([, coarseLate, nativeLate]) => coarseLate <= nativeLate + 1);
    }
    if (result.within || neverEarly.length >= PAIRS) done();
    else runNeverEarly(done);
  });
}

module.exports = {
  before: runNeverEarly,

  tearDown: function(done) {
    qt.setTimeout.coarse = false;
    qt.setTimeout.coarseFrom = 1000;
    done();
  },

  'never early, nothing lost, late within granularity(delay) + TAU + 1 ms beyond native (from the end of the arming section)': function(t) {
    t.ok(neverEarly.length > 0, 'ran');
    for (const { pair, native, ours, n, q } of neverEarly) {
      t.ok(native && ours, `both ran: ${pair.native.err} ${pair.qtimers.err}`);
      t.strictEqual(pair.qtimers.installed, true, 'qtimers in place');
      // absolute, every timer, every pair
      t.deepEqual(q.early, [], 'no coarse timer fired early');
      t.deepEqual(n.early, [], 'no native timer fired early');
      t.strictEqual(q.wrong, 0, 'each fired once, the cleared never');
      t.strictEqual(n.wrong, 0, 'natively too');
      t.ok(q.late.length > 150 && q.cleared > 0, `${q.late.length} fired, ${q.cleared} cleared`);
    }
    const last = neverEarly[neverEarly.length - 1];
    t.ok(last.within, `lateness less the bound vs native's lateness (quantile, coarse, native), ${neverEarly.length} pairs: ${JSON.stringify(last.figures)}`);
    t.done();
  },

  'one delay fires in the order of its last arming or refreshing calls, the slot trap included': function(t) {
    for (const seed of [3, 11]) {
      for (const qtimers of [false, true]) {
        const res = runFile('order.js', { qtimers, args: [String(seed)] });
        t.ok(res.json, res.stderr);
        t.deepEqual(res.json.fired, res.json.expected, `seed ${seed}, ${qtimers ? 'qtimers' : 'native'}`);
        t.ok(res.json.fired.indexOf(0) < res.json.fired.indexOf(1), 'A (refreshed in its slot) before B (armed after)');
      }
    }
    t.done();
  },

  'ref, unref, hasRef, refresh, close, clear, toPrimitive, intervals and promises as natively': function(t) {
    const native = child.runJson(HANDLES_PROGRAM, { qtimers: false });
    const ours = child.runJson(HANDLES_PROGRAM);
    t.ok(Array.isArray(native.json), native.stderr);
    t.deepEqual(ours.json, native.json, ours.stderr);
    t.done();
  },

  'only unref\'d coarse timers: the process exits as natively; a referenced one keeps it until it fires': function(t) {
    const native = child.runJson(EXIT_PROGRAM, { qtimers: false, args: ['unref'] });
    const ours = child.runJson(EXIT_PROGRAM, { args: ['unref'] });
    t.ok(native.json && ours.json, ours.stderr);
    t.strictEqual(ours.stdout.includes('fired'), false, 'never fired');
    // loosely: both well before the timer's 2 s
    t.ok(ours.json.exit < 1000 && native.json.exit < 1000, `exit at ${ours.json.exit} ms (native ${native.json.exit} ms)`);
    const alive = child.run(EXIT_PROGRAM, { args: ['ref'] });
    const lines = alive.stdout.trim().split('\n').map((l) => JSON.parse(l));
    t.ok(lines[0].fired >= 2100 - 1, `fired at ${lines[0].fired} ms, 2000 ms after its refresh at 100 ms`);
    t.ok(lines[1].exit >= lines[0].fired, 'exited after');
    t.done();
  },

  'QTIMERS_COARSE and QTIMERS_COARSE_FROM switch it on with -r, --import and require() on the first line': function(t) {
    const env = { QTIMERS_COARSE: '1', QTIMERS_COARSE_FROM: '200' };
    const expected = { coarse: true, from: 200, pending: 1, installed: true };
    const preloaded = child.runJson(SWITCH_CHECK, { env });
    t.deepEqual(preloaded.json, expected, `-r qtimers: ${preloaded.stderr}`);
    const required = child.runJson(`require(ROOT);\n${SWITCH_CHECK}`, { qtimers: false, expect: 'qtimers', env });
    t.deepEqual(required.json, expected, `require on the first line: ${required.stderr}`);
    const imported = child.runJson(SWITCH_CHECK, {
      qtimers: false, expect: 'qtimers', cwd: child.ROOT, nodeArgs: ['--import', 'qtimers/register'],
      env: { QTIMERS_COARSE: 'on', QTIMERS_COARSE_FROM: '200' },
    });
    t.deepEqual(imported.json, expected, `--import qtimers/register: ${imported.stderr}`);
    for (const on of ['true', 'TRUE', ' on ']) {
      t.strictEqual(child.runJson(SWITCH_CHECK, { env: { QTIMERS_COARSE: on } }).json.coarse, true, on);
    }
    const off = child.runJson(SWITCH_CHECK, { env: { QTIMERS_COARSE: '0' } });
    t.deepEqual(off.json, { coarse: false, from: 1000, pending: 0, installed: true });
    t.strictEqual(off.stderr, '', 'no warning');
    t.done();
  },

  'a bad QTIMERS_COARSE or QTIMERS_COARSE_FROM warns once (QTIMERS_BAD_ENV) and is ignored': function(t) {
    const CHECK = `process.on('warning', (w) => console.log(JSON.stringify({ code: w.code, message: w.message })));\n${SWITCH_CHECK}`;
    for (const env of [{ QTIMERS_COARSE: 'yes please' }, { QTIMERS_COARSE_FROM: '0' }, { QTIMERS_COARSE_FROM: 'soon' },
      { QTIMERS_COARSE: 'maybe', QTIMERS_COARSE_FROM: '-5' }]) {
      const res = child.run(CHECK, { env });
      t.strictEqual(res.status, 0, res.stderr);
      const lines = res.stdout.trim().split('\n').map((l) => JSON.parse(l));
      const warnings = lines.filter((l) => l.code !== undefined);
      const state = lines.find((l) => l.coarse !== undefined);
      t.strictEqual(warnings.length, 1, `one warning for ${JSON.stringify(env)}`);
      t.strictEqual(warnings[0].code, 'QTIMERS_BAD_ENV');
      for (const name of Object.keys(env)) t.ok(warnings[0].message.includes(name), warnings[0].message);
      t.deepEqual(state, { coarse: false, from: 1000, pending: 0, installed: true }, 'ignored');
    }
    t.done();
  },

  'coarse(timer) makes one timer coarse, whatever its delay and the knob, and returns it': function(t) {
    t.strictEqual(qt.setTimeout.coarse, false, 'off by default');
    const fired = [];
    const before = performance.now();
    const a = qt.setTimeout(() => fired.push(['a', performance.now() - before]), 50);
    t.strictEqual(qt.coarse(a), a);
    const b = qt.setInterval(() => {
      fired.push(['b', performance.now() - before]);
      if (fired.filter((f) => f[0] === 'b').length === 2) qt.clearInterval(b);
    }, 40);
    t.strictEqual(qt.coarse(b), b);
    const exact = qt.setTimeout(() => fired.push(['exact']), 5000);
    const s = qt.stats();
    t.strictEqual(s.coarse.pending, 2);
    t.strictEqual(s.coarse.refed, 2);
    qt.clearTimeout(exact);
    qt.setTimeout(() => {
      const names = fired.map((f) => f[0]);
      t.deepEqual(names.sort(), ['a', 'b', 'b']);
      for (const [name, elapsed] of fired) t.ok(elapsed >= (name === 'a' ? 50 : 40) - 1, `${name} not early: ${elapsed}`);
      const after = qt.stats();
      t.strictEqual(after.coarse.pending, 0);
      t.ok(after.coarse.ran >= 3 && after.coarse.lateness.count === after.coarse.ran, JSON.stringify(after.coarse));
      t.done();
    }, 250);
  },

  'coarse() of anything but a qtimers Timeout: Node\'s ERR_INVALID_ARG_TYPE': function(t) {
    const nativeTimer = setTimeout(() => {}, 1);    // this file's global: Node's own
    clearTimeout(nativeTimer);
    const imm = qt.setImmediate(() => {});
    qt.clearImmediate(imm);
    for (const value of [undefined, null, 42, 'timer', {}, nativeTimer, imm, Object.create(qt.Timeout.prototype)]) {
      let err = null;
      try {
        qt.coarse(value);
      } catch (e) {
        err = e;
      }
      let reference = null;
      try {
        if (typeof value === 'number') Buffer.byteLength(value);
        else Buffer.alloc(value);
      } catch (e) {
        reference = e;       // Node's own description of the value
      }
      t.ok(err instanceof TypeError, String(value));
      t.strictEqual(err.code, 'ERR_INVALID_ARG_TYPE');
      const received = reference.message.slice(reference.message.indexOf('. Received '));
      t.strictEqual(err.message, `The "timer" argument must be an instance of Timeout${received}`);
    }
    t.done();
  },

  'stats() shows coarse timers apart: pending, referenced, run and their own lateness': function(t) {
    const res = child.runJson(`
      const api = require(ROOT);
      setTimeout.coarse = true;
      setTimeout.coarseFrom = 100;
      const c1 = setTimeout(() => {}, 150);
      setTimeout(() => {}, 150).unref();
      setTimeout(() => {}, 20);
      const first = api.stats();
      setTimeout.coarse = false;   // the reporting timer is exact
      setTimeout(() => {
        const second = api.stats();
        console.log(JSON.stringify({ first, second }));
      }, 400);
    `);
    t.ok(res.json, res.stderr);
    const { first, second } = res.json;
    t.deepEqual([first.coarse.pending, first.coarse.refed, first.timeouts.pending], [2, 1, 3]);
    t.strictEqual(second.coarse.pending, 0);
    t.strictEqual(second.coarse.ran, 2);
    t.strictEqual(second.coarse.lateness.count, 2);
    t.strictEqual(second.lateness.count, 2, 'the exact ones (the reporting one running) alone in `lateness`');
    t.strictEqual(second.timeouts.ran, 4, 'all run, the reporting one included');
    t.done();
  },

  'heap per pending coarse timer is no more than per exact one': function(t) {
    const res = child.runJson(MEMORY_PROGRAM, { qtimers: false, expect: 'qtimers', args: [], nodeArgs: ['--expose-gc'] });
    t.ok(res.json, res.stderr);
    const { exact, coarse: c } = res.json;
    t.strictEqual(c.pending, 100000, 'all coarse');
    t.strictEqual(exact.pending, 0);
    t.ok(c.bytes <= exact.bytes + 2, `coarse ${c.bytes.toFixed(1)} B/timer, exact ${exact.bytes.toFixed(1)} B/timer`);
    t.done();
  },
};
