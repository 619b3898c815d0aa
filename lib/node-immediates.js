/*
 * node-immediates: what Node's own immediate list says about a driver qtimers queued in it.
 *
 * Owns reading Node's list, for immediates.js, which puts each of its immediates where Node
 * would have put it: in the turn of its newest driver while that driver is still the last of
 * Node's pending immediates, else in a driver of its own.  Node links its list through the
 * native Immediates' `_idleNext`/`_idlePrev`, and when a check phase starts it takes the whole
 * list and runs it, marking each immediate `_destroyed` as it starts:
 *
 *     pending:   D <- M                        D._idleNext === M: not the last
 *     running:   X(destroyed) <- Y <- D        D is last, but of the list this phase runs
 *
 * A Node that does not link them so (no `_idleNext`) has no driver that is the last: every
 * immediate queued while one is pending then gets its own, which is in order, only slower.
 * test/unit/test-immediates.js's "among native immediates" runs on every Node of the matrix.
 * It must never change Node's list or a driver, and never call into C++.
 */
'use strict';

const section = require('./section');

// How far back stillLast() follows Node's list before it gives up (a new driver is then
// queued, which is always in order): the native immediates queued before the driver.
const LOOK_BACK = 8;

// The driver last found waiting for a check phase to come, until the section ends: none starts
// before (the event loop is not reached), so only what is queued after it can change.
let waiting = null;

section.atEnd(function forgetWaiting() {
  waiting = null;
});

/* whether `d`'s list is not the one the check phase runs: none of those before it started */
function waitsForPhase(d) {
  let p = d._idlePrev;
  for (let k = 0; p !== null; k++) {
    if (p === undefined || p._destroyed === true || k === LOOK_BACK) return false;
    p = p._idlePrev;
  }
  waiting = d;
  section.needsEnd();
  return true;
}

/*
 * whether native Immediate `d` (or null) is the last of Node's pending immediates, in the list
 * the next check phase runs: an immediate queued now would natively run right after it
 */
function stillLast(d) {
  return d !== null && d._idleNext === null && (d === waiting || waitsForPhase(d));
}

module.exports = { stillLast };
