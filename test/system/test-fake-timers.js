/*
 * qtimers beside fake-timer libraries (test/fixtures/fake-timers/), each in child processes
 * with a watchdog, natively (the control) and with qtimers loaded before the fakes are turned
 * on and while they are on:
 *   - @sinonjs/fake-timers (default toFake; everything including process.hrtime, performance,
 *     Date, nextTick and queueMicrotask; the clock alone) and node:test's mock.timers (Node
 *     18.19 and later have it; enable() with no argument fakes what each version can), in
 *     node-run.js, also with uninstall() called while the fakes are on;
 *   - jest's modern and legacy fake timers, turned on in a test or for every file before it
 *     loads, with a second test file in the same worker that must not see qtimers;
 *   - vitest's fake timers, default toFake and with the clock, performance and queueMicrotask.
 * Checked: the fakes control the test's timers while on (advancing them fires the timers, in
 * the native order); install() replaces nothing while fakes are on and says so through
 * isInstalled(); after the fakes are removed real timers, qtimers' included, fire no earlier
 * than asked and the process exits; uninstall() leaves Node's own functions in place, even
 * when it was called while fakes were over qtimers'; no QTIMERS_NOT_INSTALLED warning (that is
 * for wrappers such as APM agents, test-agents.js).
 */
'use strict';

const assert = require('assert');
const path = require('path');
const child = require('../helpers/child');
const { twoAtATime, lastJson, ROOT } = child;

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'fake-timers');
const BIN = path.join(ROOT, 'node_modules', '.bin');


const FAKES = ['sinon', 'sinon-all', 'sinon-hrtime', 'node-test'];
const ORDERS = ['qtimers-first', 'fakes-first', 'uninstall-under'];
const JEST_ORDERS = ['qtimers-first', 'fakes-first'];

// name -> [command, args, env, timeout]
const RUNS = {};
for (const fakes of FAKES) {
  for (const order of ORDERS) {
    for (const qt of ['0', '1']) {
      RUNS[`node ${fakes} ${order} ${qt}`] = [process.execPath, [path.join(FIXTURES, 'node-run.js'), fakes, order, qt], {}, 20000];
    }
  }
}
const jestArgs = [path.join(BIN, 'jest'), '--config', path.join(FIXTURES, 'jest', 'jest.config.js'), '--runInBand', '--ci'];
const vitestArgs = [path.join(BIN, 'vitest'), 'run', '--root', path.join(FIXTURES, 'vitest')];
for (const order of JEST_ORDERS) {
  for (const qt of ['0', '1']) {
    for (const legacy of ['0', '1']) {
      RUNS[`jest ${legacy === '1' ? 'legacy' : 'modern'} ${order} ${qt}`] = [process.execPath, jestArgs, { FT_ORDER: order, FT_LEGACY: legacy, QT: qt }, 60000];
    }
    for (const toFake of ['default', 'all']) {
      RUNS[`vitest ${toFake} ${order} ${qt}`] = [process.execPath, vitestArgs, { FT_ORDER: order, FT_TOFAKE: toFake, QT: qt }, 60000];
    }
  }
}

const results = {};

function finished(name) {
  const r = results[name];
  const why = r.timedOut ? 'did not exit (killed by the watchdog)' : r.signal ? 'died of ' + r.signal : 'exit code ' + r.code;
  assert.ok(!r.timedOut && r.code === 0, `${name}: ${why}; stdout: ${r.out.slice(-1500)} stderr: ${r.err.slice(-1500)}`);
  // fakes holding the timers are a test's intent: install() leaves them without a warning
  assert.ok(!/QTIMERS_NOT_INSTALLED/.test(r.out + r.err), `${name}: warned about the fakes: ${r.err.slice(-1500)}`);
  return r;
}

/* the node-run.js result of one run */
function nodeRun(fakes, order, qt) {
  const r = finished(`node ${fakes} ${order} ${qt}`);
  const json = lastJson(r.out);
  assert.ok(json, `node ${fakes} ${order} ${qt}: no result line: ${r.out.slice(-300)} ${r.err.slice(-300)}`);
  return json;
}

/* what fired up to the fake clock's advance, in order; and the rest (real timers), sorted */
function split(log) {
  const at = log.indexOf('advanced');
  assert.ok(at >= 0, 'the run got as far as advancing the fakes: ' + JSON.stringify(log));
  return { faked: log.slice(0, at + 1), real: log.slice(at + 1).sort() };
}

const NODES = { nodes: true, nodeModule: true, qtimers: false, installed: false };
const QTIMERS = { nodes: false, nodeModule: false, qtimers: true, installed: true };

function nodeRunTest(fakes) {
  const fakesTimers = fakes !== 'sinon-hrtime';
  return function (t) {
    for (const order of ORDERS) {
      const native = nodeRun(fakes, order, '0');
      const ours = nodeRun(fakes, order, '1');
      const label = `${fakes}, ${order}`;
      const nativeLog = split(native.log);
      const ourLog = split(ours.log);
      if (fakesTimers) {
        // advancing fired the test's timers (which ones is the library's business: Node 18's
        // mock.timers fires the interval once and not the 100 ms timeout on tick(100))
        t.ok(nativeLog.faked.includes('interval 40') && ourLog.faked.includes('interval 40'), `${label}: advancing the fakes fired timers`);
      }
      t.deepEqual(ourLog.faked, nativeLog.faked, `${label}: the fakes fire the test's timers as natively`);
      t.deepEqual(ourLog.real, nativeLog.real, `${label}: after the fakes, the same real timers fire`);
      t.ok(ourLog.real.includes('direct timeout 30') && ourLog.real.includes('last timeout'), `${label}: qtimers' own timers fired`);
      t.strictEqual(ours.lateEnough, true, `${label}: not early`);
      t.strictEqual(native.lateEnough, true, `${label}: not early (native)`);

      t.strictEqual(native.whileFaked.nodes, !fakesTimers, `${label}: the control saw the fakes in place`);
      t.deepEqual(native.afterFakes, NODES, `${label}: the control got Node's back`);
      // qtimers is (or stays, under the fakes) installed when it was loaded first, or when only
      // the clock was faked; uninstall() under node:test's mock cannot reach the mock's private
      // copy, so it stays installed under it until a second uninstall()
      const underFakes = order === 'qtimers-first' || (!fakesTimers && order === 'fakes-first') ||
        (order === 'uninstall-under' && fakes === 'node-test');
      t.strictEqual(ours.whileFaked.installed, underFakes, `${label}: isInstalled() while the fakes are on`);
      t.strictEqual(ours.whileFaked.qtimers, !fakesTimers && order !== 'uninstall-under', `${label}: install() left the fakes in place`);
      t.deepEqual(ours.afterFakes, underFakes ? QTIMERS : NODES, `${label}: what the globals are after the fakes`);
      t.deepEqual(ours.uninstalled, NODES, `${label}: uninstall() restores Node's`);
      t.deepEqual(ours.reinstalled, QTIMERS, `${label}: install() works once the fakes are gone`);
      t.deepEqual(ours.end, NODES, `${label}: Node's at exit`);
    }
    t.done();
  };
}

function frameworkTest(prefix, variants, expectedTests) {
  return function (t) {
    for (const variant of variants) {
      for (const order of JEST_ORDERS) {
        for (const qt of ['0', '1']) {
          const name = `${prefix} ${variant} ${order} ${qt}`;
          const r = finished(name);
          const text = r.out + r.err;
          t.ok(new RegExp(`Tests:?\\s+${expectedTests} passed`).test(text), `${name}: ${expectedTests} tests passed: ${text.slice(-1500)}`);
          t.ok(!/did not exit/.test(text), `${name}: exited`);
        }
      }
    }
    t.done();
  };
}

module.exports = {
  before: function (done) {
    twoAtATime(Object.keys(RUNS), (name, finishedOne) => {
      const [command, args, env, timeout] = RUNS[name];
      // its own process group: the watchdog kills jest's and vitest's workers too
      const environment = Object.assign({ CI: '1', FORCE_COLOR: '0', NO_COLOR: '1' }, env);
      child.spawn(command, args, { timeout, cwd: ROOT, env: environment, processGroup: true }, (r) => {
        results[name] = r;
        finishedOne();
      });
    }, done);
  },

  '@sinonjs/fake-timers, default toFake: both load orders, and uninstall() under the fakes': nodeRunTest('sinon'),
  '@sinonjs/fake-timers faking hrtime, performance, Date, nextTick and queueMicrotask too': nodeRunTest('sinon-all'),
  '@sinonjs/fake-timers faking only the clock (process.hrtime, performance, Date)': nodeRunTest('sinon-hrtime'),
  'node:test mock.timers: both load orders, and uninstall() under the mock': nodeRunTest('node-test'),
  'jest modern and legacy fake timers, in a test and enabled globally; no leak to the next file': frameworkTest('jest', ['modern', 'legacy'], 3),
  'vitest fake timers, default toFake and with the clock and queueMicrotask': frameworkTest('vitest', ['default', 'all'], 2),
};
