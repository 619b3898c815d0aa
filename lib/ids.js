/*
 * ids: the numeric ids that Symbol.toPrimitive gives timeouts, and finding a timeout by its id.
 *
 * Owns the id space and the id -> handle map.  Ids are made on demand: most timers never need
 * one, so the id lives here rather than in a field every timer would carry.  A handle is in the
 * map only while it can still be cleared by its id (pending, or running as an interval).
 * It must never keep a handle reachable after it was cleared or fired for good.
 */
'use strict';

const { CLEARED, PRIMITIVE } = require('./flags');

const timersById = Object.create(null);
const idOf = new WeakMap();
let lastId = 0;

/* the timer's id, made now if it has none */
function idFor(timer) {
  let id = idOf.get(timer);
  if (id === undefined) {
    id = ++lastId;
    idOf.set(timer, id);
  }
  if (!(timer._flags & CLEARED)) {
    timer._flags |= PRIMITIVE;
    timersById[id] = timer;
  }
  return id;
}

/* the pending timer with this id (a number or a numeric string), or undefined */
function timerWithId(id) {
  return timersById[id];
}

/* the timer can no longer be cleared by id: let the map forget it */
function forget(timer) {
  const id = idOf.get(timer);
  if (id !== undefined) delete timersById[id];
  timer._flags &= ~PRIMITIVE;
}

module.exports = { idFor, timerWithId, forget };
