'use strict';
// Open-handle tools must report exactly what they report natively: the program's timers that
// keep the process alive, and nothing of qtimers' own (its drivers, its top-level scope) nor
// unref'd, cleared or finished timers.  why-is-node-running and jest --detectOpenHandles run
// over the same program natively and with qtimers, and their reports are compared: the number
// of handles and their types (stack lines differ by design: qtimers' own frames sit between
// the tool's hook and the program's call, where Node's internal ones are hidden).

const path = require('path');
const { spawnSync } = require('child_process');
const { PRELOAD, ROOT } = require('./helpers/child');

const FIXTURES = path.join(__dirname, 'fixtures/context');
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
};
