/*
 * stats: what qtimers holds right now, in counts.
 *
 * Owns putting the immediates' and the timeouts' state side by side: stats() for diagnostics and
 * tests (queue entries, referenced handles, timeout lists, drivers), activeHandles() for
 * active-resources.js, which corrects process.getActiveResourcesInfo() with it.
 * It must never change anything it reports on.
 */
'use strict';

const immediates = require('./immediates');
const timeouts = require('./timeouts');

function stats() {
  const i = immediates.snapshot();
  const t = timeouts.snapshot();
  return {
    immediates: i.queued,
    refedImmediates: i.refed,
    refedTimeouts: t.refed,
    timeoutLists: t.lists,
    immediateDriver: i.driverQueued,
    timeoutArmed: t.armed,
  };
}

/*
 * the native handles qtimers itself holds that keep the process alive right now (what Node's
 * process.getActiveResourcesInfo() counts of ours), and the referenced handles of qtimers' own
 * that are pending, counted as Node would count them
 */
function activeHandles() {
  const i = immediates.snapshot();
  const t = timeouts.snapshot();
  return {
    // Node counts a native Immediate while it is referenced (not while it runs): our own record
    // of the drivers' ref state, since a driver's hasRef() answers false to open-handle tools
    nativeTimeouts: t.driverActive ? 1 : 0,
    nativeImmediates: i.driverQueued && i.driverRefed ? 1 : 0,
    refedTimeouts: t.refed,
    refedImmediates: i.refed - i.refedRunning,
  };
}

module.exports = { stats, activeHandles };
