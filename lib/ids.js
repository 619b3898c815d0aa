/*
 * ids: the numeric ids that Symbol.toPrimitive gives timeouts, and finding a timeout by its id.
 *
 * Owns the id space and the id -> handle map.  A native timer's id is its async id, so the ids
 * come from Node's own async id counter: a timeout whose context is an AsyncResource (when the
 * program has async hooks) takes that resource's id, exactly what hooks saw for it, as natively;
 * any other takes a fresh one from an AsyncResource made for nothing else.  No id is then ever
 * the id of a native timer, made before install or after uninstall, nor of another of ours, so
 * clearTimeout(id) on either side can only cancel the timer it names.  Ids are made on demand:
 * most timers never need one, so only a timer converted to a number carries it (a property
 * added then) rather than a field every timer would carry.
 * Node's rules, which these follow: the first `+t` registers the timer under its id; firing for
 * good or being cleared unregisters it, and it is never registered again (clearTimeout(id) does
 * nothing from then on); a fired timer revived by refresh() answers a new id (Node gives a
 * revived timer a new async id), also unregistered.  (Node 18 never unregisters a fired one, and
 * so leaks every timer converted to a number; qtimers keeps to what Node 20 and later do.)
 * It must never keep a handle reachable after it was cleared or fired for good.
 */
'use strict';

const { AsyncResource } = require('./builtins').asyncHooks;
const { CLEARED, DESTROYED, PRIMITIVE } = require('./flags');

// The timers that can be cleared by their id.  A Map keyed by number, not a dictionary object:
// a set/delete pair costs a fraction, and `+t` on every timer is a pattern.
const timersById = new Map();

// A timer's id, once it has one, is a property of its own: a Map or WeakMap from timer to id
// costs several times more (an identity hash, an ephemeron), and only timers converted to a
// number carry it.  A negative value is the id drawn after a revival, never registered.
const ID = Symbol('qtimers.id');

const ID_OPTIONS = { requireManualDestroy: true };

function newId(timer, type = 'Timeout') {
  const ctx = timer._asyncContext;
  if (ctx instanceof AsyncResource) return ctx.asyncId();
  return new AsyncResource(type, ID_OPTIONS).asyncId();
}

/* the timer's id, made now if it has none */
function idFor(timer) {
  const f = timer._flags;
  let id = timer[ID];
  if (id === undefined) {
    // the first `+t`: registered while it can still be cleared
    id = newId(timer);
    timer[ID] = id;
    if (!(f & (CLEARED | DESTROYED))) {
      timer._flags = f | PRIMITIVE;
      timersById.set(id, timer);
    }
    return id;
  }
  if (id < 0) return -id;
  if (f & (PRIMITIVE | CLEARED | DESTROYED)) return id;
  // it left the map and is alive again (refresh() after it fired): a new id, never registered
  id = newId(timer);
  timer[ID] = -id;
  return id;
}

/* the id a handle was given (by `+t`, or asyncIdOf), or undefined: nothing is made */
function knownId(handle) {
  const id = handle[ID];
  return id === undefined || id > 0 ? id : -id;
}

/*
 * an immediate's id, made the first time it is asked for (Node's Timeout.prototype's
 * Symbol.toPrimitive called on an Immediate answers its async id); never registered, as no
 * clearTimeout(id) clears an immediate
 */
function asyncIdOf(imm) {
  let id = imm[ID];
  if (id === undefined) {
    id = newId(imm, 'Immediate');
    imm[ID] = id;
  }
  return id;
}

/* the timer registered under this id (a number or a numeric string, as a property key), or undefined */
function timerWithId(id) {
  if (typeof id === 'string') {
    // Node looks ids up as property keys: '7' finds 7, '07' and '7.0' do not
    const n = Number(id);
    if (String(n) !== id) return undefined;
    id = n;
  }
  return timersById.get(id);
}

/* the timer can no longer be cleared by id (it fired for good or was cleared): let the map forget it */
function forget(timer) {
  if (!(timer._flags & PRIMITIVE)) return;
  timersById.delete(timer[ID]);
  timer._flags &= ~PRIMITIVE;
}

module.exports = { idFor, knownId, asyncIdOf, timerWithId, forget };
