'use strict';
// lib/stats.js: what qtimers holds, counted.  stats() follows the queue, the reference counts,
// the timeout lists and the drivers through a program's life; activeHandles() counts the
// drivers as Node counts native handles (after the section settles them) and a running
// immediate no longer, a running timeout still.  In a fresh process, so that nothing else is
// pending.

const { runJson } = require('./helpers/child');

module.exports = {
  'stats() and activeHandles() follow pending, running and finished timers': function(t) {
    const res = runJson(`
      const qt = require(ROOT + '/lib/standalone');
      const { stats, activeHandles } = require(ROOT + '/lib/stats');
      const out = { idle: stats() };
      qt.setTimeout(() => {}, 50);
      qt.setTimeout(() => {}, 50).unref();
      const running = qt.setTimeout(() => { out.inTimeout = activeHandles(); }, 20);
      qt.setImmediate(() => { out.inImmediate = activeHandles(); });
      qt.setImmediate(() => {}).unref();
      out.pending = stats();
      out.unsettled = activeHandles();
      Promise.resolve().then(() => {
        out.settled = activeHandles();
        setTimeout(() => {
          out.done = stats();
          out.doneActive = activeHandles();
          console.log(JSON.stringify(out));
        }, 100);
      });
    `, { qtimers: false });
    t.strictEqual(res.status, 0, res.stderr);
    const out = res.json;
    t.deepEqual(out.idle, { immediates: 0, refedImmediates: 0, refedTimeouts: 0, timeoutLists: 0, immediateDriver: false, timeoutArmed: false });
    t.deepEqual(out.pending, { immediates: 2, refedImmediates: 1, refedTimeouts: 2, timeoutLists: 2, immediateDriver: true, timeoutArmed: true });
    // the timeout driver is armed (and referenced) at the first timer; the immediate driver
    // is queued referenced and stays so: both count at once
    t.deepEqual(out.unsettled, { nativeTimeouts: 1, nativeImmediates: 1, refedTimeouts: 2, refedImmediates: 1 });
    t.deepEqual(out.settled, out.unsettled);
    t.deepEqual(out.inImmediate, { nativeTimeouts: 1, nativeImmediates: 0, refedTimeouts: 2, refedImmediates: 0 }, 'a running immediate is no longer counted');
    t.deepEqual(out.inTimeout, { nativeTimeouts: 1, nativeImmediates: 0, refedTimeouts: 2, refedImmediates: 0 }, 'a running timeout still is');
    t.deepEqual(out.done, { immediates: 0, refedImmediates: 0, refedTimeouts: 0, timeoutLists: 0, immediateDriver: false, timeoutArmed: false });
    t.deepEqual(out.doneActive, { nativeTimeouts: 0, nativeImmediates: 0, refedTimeouts: 0, refedImmediates: 0 });
    t.done();
  },
};
