/*
 * Randomized property tests: generated timer programs (setTimeout, setInterval, setImmediate,
 * clears from inside and outside callbacks, ref/unref/hasRef/refresh, nested scheduling, throwing
 * callbacks, nextTicks, microtasks and promise jobs, AsyncLocalStorage stores) run on Node's
 * timers (the control) and on qtimers, and their logs are checked for every guarantee; see
 * test/property/check.js for the list.
 *
 * `npm test` runs a fixed seed, so that a run is reproducible and a red CI means a change broke
 * something; QTIMERS_PROPERTY_SEED=random (or any number) explores others, as the long mode does,
 * and the seed is printed with every failure.  QTIMERS_PROPERTY_RUNS sets the number of programs
 * (default 300), e.g.
 *   QTIMERS_PROPERTY_SEED=random QTIMERS_PROPERTY_RUNS=5000 npm test   or   node test/property/run.js --runs 5000
 * The child processes run in before(), which qnit does not time out; the tests then only look at
 * the results.
 */
'use strict';

const assert = require('assert');
const { runProperties, runBroken, formatReport } = require('../property/run');
const { check } = require('../property/check');
const { BROKEN } = require('../property/broken');

const RUNS = Number(process.env.QTIMERS_PROPERTY_RUNS) || 300;
const FIXED_SEED = 20261121;
const SEED = process.env.QTIMERS_PROPERTY_SEED === 'random' ? undefined
  : process.env.QTIMERS_PROPERTY_SEED !== undefined ? Number(process.env.QTIMERS_PROPERTY_SEED) : FIXED_SEED;

let report = null;
let broken = null;

function failures(name) {
  const r = report.modes[name];
  const lines = [];
  for (const [prop, list] of Object.entries(r.violations)) {
    lines.push(`${prop} failed in ${list.length} program(s): ` +
      list.slice(0, 3).map((v) => `seed ${v.seed}: ${v.message}`).join('; '));
  }
  return lines.concat(r.errors);
}

function assertModeHolds(t, name) {
  const r = report.modes[name];
  t.equal(r.programs, RUNS, `${name}: all ${RUNS} programs reported`);
  const bad = failures(name);
  assert.deepStrictEqual(bad, [], `${name} (seed ${report.seed}, rerun one program with ` +
    `node test/property/run.js --seed <seed> --runs 1 --verbose):\n  ${bad.join('\n  ')}`);
  // the programs did exercise what they are meant to
  t.ok(r.stats.fires > RUNS * 5, `${name}: ${r.stats.fires} callbacks ran`);
  t.ok(r.stats.throws > 0, `${name}: some callbacks threw`);
}

module.exports = {
  before: function (done) {
    let waiting = 2;
    const joined = () => {
      if (--waiting > 0) return;
      console.log(formatReport(report));
      done();
    };
    runProperties({ runs: RUNS, seed: SEED, jobs: 3 }, (err, r) => {
      report = r;
      joined();
    });
    runBroken({ runs: 40, parallel: 2 }, (err, r) => {
      broken = r;
      joined();
    });
  },

  'native timers (the control) have every property': function (t) {
    assertModeHolds(t, 'native');
    // the tolerance for "not early" comes from here: Node's 1 ms clock granularity
    t.ok(report.nativeMaxEarly > 0 && report.nativeMaxEarly <= 1, `native fired at most ${report.nativeMaxEarly} ms early`);
    t.done();
  },

  'qtimers with Node\'s rule (maxTickDepth 0, no async context) has every property': function (t) {
    assertModeHolds(t, 'q-node');
    t.done();
  },

  'qtimers installed, default maxTickDepth, with AsyncLocalStorage, has every property': function (t) {
    assertModeHolds(t, 'q-default');
    t.done();
  },

  'the default turn does run new immediates in the same turn (the turn property can tell)': function (t) {
    // with the default budget some programs run immediates Node's rule would defer; the same
    // logs checked with Node's rule must then fail it
    if (RUNS < 100) return t.skip();
    t.ok(report.modes['q-default'].stats.turnStrict > 0, 'some q-default programs ran new immediates in a young turn');
    t.done();
  },

  'processes exit by themselves exactly when no referenced timer is left': function (t) {
    for (const name of Object.keys(report.exit)) {
      const x = report.exit[name];
      t.ok(x.programs > 0, name + ' ran exit programs');
      assert.deepStrictEqual(x.violations, [], name + ': ' + JSON.stringify(x.violations));
    }
    t.done();
  },

  'every checker catches timers that break its property': function (t) {
    const missed = [];
    for (const [kind, r] of Object.entries(broken)) {
      t.ok(r.programs > 0, kind + ' ran');
      if (!r.failed.includes(r.expected)) missed.push(`${kind}: expected ${r.expected}, got ${r.failed.join(', ') || 'nothing'} ${r.errors.join(' ')}`);
    }
    assert.deepStrictEqual(missed, []);
    // and every property is covered by some broken implementation
    const covered = new Set(Object.values(BROKEN));
    for (const p of ['exactly-once', 'cleared', 'not-early', 'immediate-fifo', 'timeout-fifo', 'ticks', 'no-reentry', 'this', 'args', 'store', 'uncaught', 'hasRef', 'turn', 'exit']) {
      t.ok(covered.has(p), p + ' has a broken implementation');
    }
    t.done();
  },

  'the checkers on hand-made logs': {
    'a clean log passes, and each fault is reported': function (t) {
      const base = () => [
        { e: 'create', id: 'a', kind: 'timeout', delay: 5, t0: 0, t1: 0.01, owner: 'main', phase: 'main', store: null },
        { e: 'create', id: 'b', kind: 'immediate', t0: 0.02, t1: 0.03, owner: 'main', phase: 'main', store: null },
        { e: 'end', id: 'main', n: 1, t: 0.1, threw: false },
        { e: 'fire', id: 'b', n: 1, t: 0.5, argsOk: true, thisOk: true, store: null },
        { e: 'queue', id: 'q', op: 'tick', owner: 'b', call: 1, phase: 'immediate' },
        { e: 'end', id: 'b', n: 1, t: 0.6, threw: false },
        { e: 'run', id: 'q', owner: 'b' },
        { e: 'fire', id: 'a', n: 1, t: 5.2, argsOk: true, thisOk: true, store: null },
        { e: 'end', id: 'a', n: 1, t: 5.3, threw: true },
        { e: 'uncaught', id: 'a', n: 1, ok: true },
        { e: 'done', t: 6 },
      ];
      const props = (log) => check(null, log, { tolerance: 1, turnLimit: 0 }).violations.map((v) => v.property);
      t.deepEqual(props(base()), []);

      let log = base();
      log[7].t = 3;                                   // fired 2 ms early
      t.deepEqual(props(log), ['not-early']);

      log = base();
      log.splice(9, 1);                               // the throw was never reported
      t.deepEqual(props(log), ['uncaught']);

      log = base();
      log.splice(6, 1);                               // the tick never ran
      t.deepEqual(props(log), ['ticks']);

      log = base();
      log.splice(6, 1);                               // the tick ran after the next callback
      log.splice(8, 0, { e: 'run', id: 'q', owner: 'b' });
      t.deepEqual(props(log), ['ticks']);

      log = base();
      log.splice(7, 3);                               // a never fired
      t.deepEqual(props(log), ['exactly-once']);

      log = base();
      log.splice(3, 0, { e: 'clear', target: 'a', how: 'own', found: true, t: 0.2 });
      t.deepEqual(props(log), ['cleared']);

      log = base();
      log[3].thisOk = false;
      log[7].argsOk = false;
      log[7].store = 's1';
      t.deepEqual(props(log).sort(), ['args', 'store', 'this']);

      log = base();
      log.splice(4, 0, { e: 'hasRef', target: 'b', found: true, value: true });   // ran: unref'd
      t.deepEqual(props(log), ['hasRef']);
      t.done();
    },
  },
};
