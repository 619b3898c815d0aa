/*
 * timeout-listing: what the pending timeouts are, read for stats.js and executionAsyncResource().
 *
 * Owns visiting every pending timeout and interval (forEachPending), the store's and driver's
 * state (snapshot), and which timeout's callback runs inside the driver (executionResource).
 * It reads the running timeout through timeout-drain.js's running(); neither timeouts.js nor
 * timeout-drain.js imports anything of it.
 * It must never change a timer, the store or the driver, never read a clock, and never call
 * user code other than the `visit` it is given.
 */
'use strict';

const drain = require('./timeout-drain');
const driver = require('./timeout-driver');
const { settled } = require('./refresh-batch');
const coarse = require('./coarse');
const { CLEARED, REPEAT } = require('./flags');

/*
 * visit(timer, delay) for every pending timeout and interval, list by list, each list in expiry
 * order: the linked ones, and an interval whose callback runs now (it will be linked again)
 */
function forEachPending(visit) {
  function visitWithOwnDelay(timer) {
    visit(timer, Math.trunc(timer._idleTimeout));
  }
  const heap = settled().heap;
  for (let i = 0; i < heap.length; i++) {
    if (heap[i].msecs === coarse.COARSE_DUE) heap[i].forEach(visitWithOwnDelay);
    else heap[i].forEach(visit);
  }
  coarse.forEachPending(visit);
  const t = drain.running();
  if (t !== null && t._idlePrev === null && (t._flags & (REPEAT | CLEARED)) === REPEAT && t._idleTimeout >= 0) {
    visit(t, Math.trunc(t._idleTimeout));
  }
}

/* the timeout whose callback runs now if `resource` (Node's executionAsyncResource()) is the driver */
function executionResource(resource) {
  const runningTimeout = drain.running();
  return runningTimeout !== null && driver.isDriver(resource) ? runningTimeout : null;
}

/* the store's and the driver's state now, for stats.js */
function snapshot() {
  const lists = settled().heap.length;
  const state = driver.driverState();
  state.lists = lists;
  return state;
}

module.exports = { forEachPending, executionResource, snapshot };
