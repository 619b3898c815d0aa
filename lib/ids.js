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
 * Node's rules (knownTimersById), which these follow: the first `+t` registers the timer under
 * the id it answers, even a timer that has fired (clearTimeout(id) then takes its callback, as
 * clearTimeout(t) does: timeouts.js); a fired timer revived by refresh() answers a new id (Node
 * gives it a new async id), never registered, while the id registered before stays so; firing
 * for good unregisters the id it answers (so a revived timer's first id stays registered, as
 * Node's), and clearing a pending or running timer unregisters it whatever it answers
 * (clearTimeout(id) of a cleared timer changes nothing, so Node's stale entry is not kept).
 * (Node 18 never unregisters a fired one, and so leaks every timer converted to a number;
 * qtimers keeps to what Node 20 and later do.)
 * It must never keep a handle reachable that Node's knownTimersById would not hold.
 */
'use strict';

const { AsyncResource } = require('./builtins').asyncHooks;
const { CLEARED, PRIMITIVE } = require('./flags');

// The timers that can be cleared by their id.  A Map keyed by number, not a dictionary object:
// a set/delete pair costs a fraction, and `+t` on every timer is a pattern.
const timersById = new Map();

// A timer's id, once it has one, is a property of its own: a Map or WeakMap from timer to id
// costs several times more (an identity hash, an ephemeron), and only timers converted to a
// number carry it: ID is the id it answers, REGISTERED the one it is registered under while its
// PRIMITIVE flag is set (the same, until a revival draws a new ID).
const ID = Symbol('qtimers.id');
const REGISTERED = Symbol('qtimers.registeredId');

const ID_OPTIONS = { requireManualDestroy: true };

function newId(timer, type = 'Timeout') {
  const ctx = timer._asyncContext;
  if (ctx instanceof AsyncResource) return ctx.asyncId();
  return new AsyncResource(type, ID_OPTIONS).asyncId();
}

/* the timer's id, made now if it has none */
function idFor(timer) {
  let id = timer[ID];
  if (id !== undefined) return id;
  // the first `+t`: registered, unless cleared (clearing it again by its id would change nothing)
  id = newId(timer);
  timer[ID] = id;
  const f = timer._flags;
  if (!(f & CLEARED)) {
    timer[REGISTERED] = id;
    timer._flags = f | PRIMITIVE;
    timersById.set(id, timer);
  }
  return id;
}

/* a fired timer is alive again (refresh()): one that had an id answers a new one from now on */
function revived(timer) {
  if (timer[ID] !== undefined) timer[ID] = newId(timer);
}

/* the id a handle was given (by `+t`, or asyncIdOf), or undefined: nothing is made */
function knownId(handle) {
  return handle[ID];
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

/* the timer was cleared: the map lets it go */
function forget(timer) {
  if (!(timer._flags & PRIMITIVE)) return;
  timersById.delete(timer[REGISTERED]);
  timer._flags &= ~PRIMITIVE;
}

/* the timer fired for good: the id it answers is let go, not one registered before a revival */
function fired(timer) {
  if ((timer._flags & PRIMITIVE) && timer[REGISTERED] === timer[ID]) forget(timer);
}

module.exports = { idFor, revived, knownId, asyncIdOf, timerWithId, forget, fired };
