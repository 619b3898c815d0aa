'use strict';
// OpenTelemetry's two Node context managers (AsyncHooksContextManager, built on async_hooks, and
// AsyncLocalStorageContextManager) over timers: every callback must see the context that was
// active where it was scheduled, natively and with qtimers, whether qtimers was loaded before
// the manager (-r, or required on the program's first line) or after it had been enabled.  A fixture prints what each callback saw; the
// runs with qtimers must print exactly what the native run printed.

const path = require('path');
const { spawnSync } = require('child_process');
const { PRELOAD } = require('./helpers/child');

const FIXTURE = path.join(__dirname, 'fixtures/context/otel.js');
const WATCHDOG_MS = 20000;

function observe(manager, load) {
  const argv = load === 'preload' ? ['-r', PRELOAD, FIXTURE, manager, load] : [FIXTURE, manager, load];
  const res = spawnSync(process.execPath, argv, { encoding: 'utf8', timeout: WATCHDOG_MS });
  const lines = (res.stdout || '').trim().split('\n');
  let seen;
  try { seen = JSON.parse(lines[lines.length - 1]); } catch (err) { seen = undefined; }
  return { status: res.status, signal: res.signal, stderr: res.stderr, seen };
}

function compare(t, manager) {
  const native = observe(manager, 'native');
  t.equal(native.status, 0, native.stderr);
  t.ok(Array.isArray(native.seen) && native.seen.length === 15, JSON.stringify(native.seen));
  // the fixture itself must tell contexts apart, or the comparison proves nothing
  t.ok(native.seen.includes('timeout:r1') && native.seen.includes('root-immediate:undefined'), JSON.stringify(native.seen));
  const positions = { preload: 'preloaded', first: 'required on the first line', after: 'loaded after the manager' };
  for (const load of Object.keys(positions)) {
    const ours = observe(manager, load);
    t.equal(ours.status, 0, load + ': ' + ours.stderr);
    t.deepEqual(ours.seen, native.seen, 'qtimers ' + positions[load]);
  }
}

module.exports = {
  'AsyncHooksContextManager: each callback sees the context it was scheduled in': function(t) {
    compare(t, 'hooks');
    t.done();
  },

  'AsyncLocalStorageContextManager: each callback sees the context it was scheduled in': function(t) {
    compare(t, 'als');
    t.done();
  },
};
