'use strict';
// Open-handle tools must report exactly what they report natively: the program's timers that
// keep the process alive, and nothing of qtimers' own (its drivers, its top-level scope) nor
// unref'd, cleared or finished timers.  why-is-node-running and jest --detectOpenHandles run
// over the same program natively and with qtimers, and their reports are compared: the number
// of handles and their types (stack lines differ by design: qtimers' own frames sit between
// the tool's hook and the program's call, where Node's internal ones are hidden).  Mocha has
// no such detection: it waits for what a test left referenced, which must last as natively,
// and qtimers.pending() in an after() hook names it.

const path = require('path');
const { spawnSync } = require('child_process');
const { PRELOAD, ROOT } = require('../helpers/child');

const FIXTURES = path.join(__dirname, '../fixtures/context');
const WATCHDOG_MS = 60000;

function run(argv, env) {
  const res = spawnSync(process.execPath, argv, {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: WATCHDOG_MS,
    env: Object.assign({}, process.env, env),
  });
  return { status: res.status, signal: res.signal, out: (res.stdout || '') + (res.stderr || '') };
}

function whyIsNodeRunning(load) {
  const fixture = path.join(FIXTURES, 'why-running.js');
  const res = run(load === 'preload' ? ['-r', PRELOAD, fixture, load] : [fixture, load], {});
  const lines = res.out.trim().split('\n');
  try { res.report = JSON.parse(lines[lines.length - 1]); } catch (err) { res.report = undefined; }
  return res;
}

// jest's summary of open handles: how many, of which types, and whether the program's own line
// is named
function jestOpenHandles(qtimers, leaveOpen) {
  const res = run([path.join(ROOT, 'node_modules/jest/bin/jest.js'), '--detectOpenHandles', '--rootDir', path.join(FIXTURES, 'jest')], {
    QTIMERS_UNDER_TEST: qtimers ? '1' : '',
    LEAVE_OPEN: leaveOpen ? '1' : '',
    CI: 'true',
  });
  const header = /Jest has detected the following (\d+) open handles?/.exec(res.out);
  res.count = header ? Number(header[1]) : 0;
  res.types = (res.out.match(/●\s+(\w+)/g) || []).map((m) => m.replace(/●\s+/, '')).filter((m) => m !== 'Console');
  res.namesLine = /open-handles\.test\.js:\d+/.test(res.out);
  res.passed = /Tests:\s+1 passed/.test(res.out);
  return res;
}

// mocha (without --exit) over a test that leaves one timer of DELAY_MS, referenced or not:
// how long after arming it the process exited, and what qtimers.pending() named
function mochaExit(qtimers, unref, delayMs) {
  const argv = [path.join(ROOT, 'node_modules/mocha/bin/mocha.js'), '--no-config', '--no-package'];
  if (qtimers) argv.push('--require', PRELOAD);
  argv.push(path.join(FIXTURES, 'mocha/open-handles.spec.js'));
  const res = run(argv, { QTIMERS_UNDER_TEST: qtimers ? '1' : '', UNREF: unref ? '1' : '', DELAY_MS: String(delayMs) });
  const exited = /EXITED_AFTER_MS (\d+)/.exec(res.out);
  const pending = /PENDING (.*)/.exec(res.out);
  res.exitedAfterMs = exited ? Number(exited[1]) : NaN;
  res.pending = pending ? JSON.parse(pending[1]) : undefined;
  res.passed = /1 passing/.test(res.out);
  return res;
}

// the referenced timer: what the process must outlive; the unref'd one: long enough that no run,
// however slow, exits past it by chance
const MOCHA_REFED_MS = 2000;
const MOCHA_UNREFED_MS = 30000;

module.exports = {
  'why-is-node-running lists the same handles as natively': function(t) {
    const native = whyIsNodeRunning('native');
    t.equal(native.status, 0, native.out);
    // the fixture leaves one referenced timer: the tool must see it, or the test proves nothing
    t.deepEqual(native.report, ['There are 1 handle(s) keeping the process running', '# Timeout'], native.out);
    for (const load of ['preload', 'after']) {
      const ours = whyIsNodeRunning(load);
      t.equal(ours.status, 0, ours.out);
      t.deepEqual(ours.report, native.report, 'qtimers ' + load);
    }
    t.done();
  },

  'jest --detectOpenHandles reports nothing when nothing is left open': function(t) {
    const native = jestOpenHandles(false, false);
    const ours = jestOpenHandles(true, false);
    t.ok(native.passed && ours.passed, native.out + '\n' + ours.out);
    t.equal(native.count, 0, native.out);
    t.equal(ours.count, native.count, ours.out);
    t.done();
  },

  'jest --detectOpenHandles reports the one timer left open, and only it': function(t) {
    const native = jestOpenHandles(false, true);
    const ours = jestOpenHandles(true, true);
    t.ok(native.passed && ours.passed, native.out + '\n' + ours.out);
    t.equal(native.count, 1, native.out);
    t.equal(ours.count, native.count, ours.out);
    t.deepEqual(ours.types, native.types, ours.out);
    t.ok(native.namesLine && ours.namesLine, ours.out);
    t.done();
  },

  'mocha waits for a timer a test left referenced as long as natively, and pending() names it': function(t) {
    const native = mochaExit(false, false, MOCHA_REFED_MS);
    const ours = mochaExit(true, false, MOCHA_REFED_MS);
    t.ok(native.passed && ours.passed, native.out + '\n' + ours.out);
    t.equal(native.status, 0, native.out);
    t.equal(ours.status, 0, ours.out);
    // not early: the process lived at least until the timer fired (a clock read, never flaky)
    t.ok(native.exitedAfterMs >= MOCHA_REFED_MS - 1, 'native exited ' + native.exitedAfterMs + ' ms after arming');
    t.ok(ours.exitedAfterMs >= MOCHA_REFED_MS - 1, 'qtimers exited ' + ours.exitedAfterMs + ' ms after arming');
    t.deepEqual(ours.pending, ['leftOpen'], ours.out);
    t.done();
  },

  'mocha exits without waiting for an unref\'d timer, as natively': function(t) {
    const native = mochaExit(false, true, MOCHA_UNREFED_MS);
    const ours = mochaExit(true, true, MOCHA_UNREFED_MS);
    t.ok(native.passed && ours.passed, native.out + '\n' + ours.out);
    t.ok(native.exitedAfterMs < MOCHA_UNREFED_MS, 'native exited ' + native.exitedAfterMs + ' ms after arming');
    t.ok(ours.exitedAfterMs < MOCHA_UNREFED_MS, 'qtimers exited ' + ours.exitedAfterMs + ' ms after arming');
    t.deepEqual(ours.pending, [], ours.out);
    t.done();
  },
};
