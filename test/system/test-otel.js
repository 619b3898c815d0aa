'use strict';
// OpenTelemetry's two Node context managers (AsyncHooksContextManager, built on async_hooks, and
// AsyncLocalStorageContextManager) over timers: every callback must see the context that was
// active where it was scheduled, natively and with qtimers, whether qtimers was loaded before
// the manager (-r, or required on the program's first line) or after it had been enabled.  A fixture prints what each callback saw; the
// runs with qtimers must print exactly what the native run printed.

const path = require('path');
const { spawnSync } = require('child_process');
const { PRELOAD, probe, expectImpl } = require('../helpers/child');

const FIXTURE = path.join(__dirname, '../fixtures/context/otel.js');
const WATCHDOG_MS = 20000;

/* what the fixture saw, from a child that must have run on qtimers unless `load` is 'native' */
function observe(manager, load) {
  const seen = probe();
  const argv = seen.argv.concat(load === 'preload' ? ['-r', PRELOAD, FIXTURE, manager, load] : [FIXTURE, manager, load]);
  const res = spawnSync(process.execPath, argv, { encoding: 'utf8', timeout: WATCHDOG_MS, env: Object.assign({}, process.env, seen.env) });
  const lines = (res.stdout || '').trim().split('\n');
  let saw;
  try { saw = JSON.parse(lines[lines.length - 1]); } catch (err) { saw = undefined; }
  const out = { status: res.status, signal: res.signal, stderr: res.stderr, seen: saw, installed: seen.installed(res.pid) };
  return expectImpl(out, load === 'native' ? 'native' : 'qtimers');
}

function compare(t, manager) {
  const native = observe(manager, 'native');
  t.equal(native.status, 0, native.stderr);
  t.ok(Array.isArray(native.seen) && native.seen.length === 19, JSON.stringify(native.seen));
  // the fixture itself must tell contexts apart, or the comparison proves nothing
  t.ok(native.seen.includes('timeout:r1') && native.seen.includes('root-immediate:undefined') &&
    native.seen.includes('immediate-after-r5:undefined') && native.seen.includes('immediate-r6:r6'), JSON.stringify(native.seen));
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
