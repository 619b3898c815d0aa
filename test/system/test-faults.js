/*
 * Fault tests, each in a child process (test/fixtures/faults/*), with Node's own timers as the
 * control where the same script can run on both:
 *   - 100k callbacks, 10% throwing into an 'uncaughtException' listener: every one runs exactly
 *     once and every throw is reported once (setImmediate, setTimeout, setInterval; with stores)
 *   - callbacks that clear or refresh timers due in the same batch, and then throw
 *   - uninstall() with timers pending and from inside a callback: pending qtimers handles still
 *     fire, and clear with qtimers' functions and with Node's (the restored globals)
 *   - install() twice, uninstall() restores the exact originals
 *   - worker threads that end with qtimers timers pending: the process exits cleanly
 * Every child must also exit by itself.  The children run in before(), which qnit does not time
 * out; the tests look at the results.
 */
'use strict';

const assert = require('assert');
const path = require('path');
const child = require('../helpers/child');

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'faults');

function runFixture(file, args, timeoutMs, done) {
  child.spawn(process.execPath, [path.join(FIXTURES, file)].concat(args), timeoutMs, (r) => {
    r.json = child.lastJson(r.out);
    done(r);
  });
}

// name -> [fixture, args, timeout]
const RUNS = {};
for (const kind of ['immediate', 'timeout', 'interval']) {
  for (const impl of ['native', 'qtimers']) RUNS[`throw ${kind} ${impl}`] = ['throw100k.js', [kind, impl], 30000];
}
for (const impl of ['native', 'qtimers']) {
  RUNS[`throw timeout ${impl} store`] = ['throw100k.js', ['timeout', impl, '100000', 'store'], 30000];
  RUNS[`same-batch ${impl}`] = ['same-batch.js', [impl], 20000];
}
RUNS['uninstall pending'] = ['uninstall.js', ['pending'], 10000];
RUNS['uninstall in-callback'] = ['uninstall.js', ['in-callback'], 10000];
RUNS['uninstall native-clear'] = ['uninstall.js', ['native-clear'], 5000];
RUNS['install twice'] = ['install-twice.js', [], 10000];
RUNS['worker exit'] = ['worker-exit.js', [], 20000];

const results = {};

function exitedCleanly(name) {
  const r = results[name];
  const why = r.timedOut ? 'did not exit (killed)' : r.signal ? 'died of ' + r.signal : 'exit code ' + r.code;
  assert.ok(!r.timedOut && r.code === 0, `${name}: ${why}; stdout: ${r.out.slice(-500)} stderr: ${r.err.slice(-500)}`);
  assert.ok(r.json, `${name}: no result line: ${r.out.slice(-300)}`);
  return r.json;
}

function throwTest(kind, store) {
  return function (t) {
    for (const impl of ['native', 'qtimers']) {
      const r = exitedCleanly(`throw ${kind} ${impl}${store ? ' store' : ''}`);
      t.equal(r.installed, impl === 'qtimers', impl + ' ran');
      t.equal(r.count, 100000);
      t.equal(r.ran, 100000, `${impl}: every callback ran`);
      t.equal(r.duplicates, 0, `${impl}: none ran twice`);
      t.equal(r.missing, 0, `${impl}: none missing`);
      t.equal(r.throws, 10000, `${impl}: 10% threw`);
      t.equal(r.reported, 10000, `${impl}: every throw reported`);
      t.equal(r.badReports, 0, `${impl}: each throw reported exactly once, for the right callback`);
      t.equal(r.foreign, 0, `${impl}: no other exceptions`);
      if (store) t.equal(r.wrongStore, 0, `${impl}: every callback saw its store`);
    }
    t.done();
  };
}

module.exports = {
  before: function (done) {
    child.twoAtATime(Object.keys(RUNS), (name, finished) => {
      const [file, args, timeout] = RUNS[name];
      runFixture(file, args, timeout, (r) => {
        results[name] = r;
        finished();
      });
    }, done);
  },

  '100k immediates, 10% throwing: the others run exactly once, every throw reported once': throwTest('immediate'),
  '100k timeouts, 10% throwing: the others run exactly once, every throw reported once': throwTest('timeout'),
  '100k intervals, 10% throwing: each runs once (then clears itself), every throw reported once': throwTest('interval'),
  '100k timeouts in AsyncLocalStorage stores, 10% throwing': throwTest('timeout', true),

  'callbacks that clear or refresh timers due in the same batch': function (t) {
    for (const impl of ['native', 'qtimers']) {
      const r = exitedCleanly(`same-batch ${impl}`);
      const names = Object.keys(r.scenarios);
      t.ok(names.length >= 9, 'all scenarios ran');
      const bad = names.filter((n) => r.scenarios[n].problems.length > 0).map((n) => `${n}: ${r.scenarios[n].problems.join('; ')}`);
      assert.deepStrictEqual(bad, [], impl);
      t.equal(r.uncaught, r.expectedUncaught, impl + ': every planned throw reported once');
    }
    t.done();
  },

  'uninstall() with timers pending: they still fire, and clear with qtimers\' and Node\'s functions': function (t) {
    const r = exitedCleanly('uninstall pending');
    assert.deepStrictEqual(r.problems, []);
    t.done();
  },

  'uninstall() from inside a callback: the batch goes on, new timers are Node\'s': function (t) {
    const r = exitedCleanly('uninstall in-callback');
    assert.deepStrictEqual(r.problems, []);
    t.done();
  },

  'Node\'s clearImmediate on pending qtimers immediates leaves Node\'s own immediates working': function (t) {
    const r = results['uninstall native-clear'];
    assert.ok(r.json, 'no result: ' + r.err);
    assert.deepStrictEqual(r.json.problems, []);
    exitedCleanly('uninstall native-clear');
    t.done();
  },

  'install() twice is idempotent, uninstall() restores the exact originals': function (t) {
    const r = exitedCleanly('install twice');
    t.ok(r.checks > 50, r.checks + ' checks');
    assert.deepStrictEqual(r.problems, []);
    t.done();
  },

  'worker threads ending with qtimers timers pending; the process exits cleanly': function (t) {
    const r = exitedCleanly('worker exit').results;
    t.equal(r.exit.exitCode, 0, 'process.exit(0) from a callback');
    t.equal(r.exit.messages.length, 1);
    t.equal(r.terminate.exitCode, 1, 'terminate()d');
    t.equal(r.throw.exitCode, 1, 'uncaught throw in a callback');
    t.ok(/planned/.test(r.throw.error), 'the throw reached the worker\'s error event');
    t.equal(r['unref-only'].exitCode, 0, 'only unref\'d timers: ends by itself');
    t.equal(r['unref-only'].messages.length, 0);
    t.done();
  },
};
