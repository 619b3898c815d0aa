/*
 * handle-views: what util.inspect and JSON.stringify show of qtimers' Timeouts and Immediates.
 *
 * Owns the views: new plain objects with Node's fields in Node's order and Node's values, then
 * any field a program added, and, for util.inspect, Node's own symbols (found on a native handle
 * by timers.js) with our state: `refed`, `kHasPrimitive`, the async ids where the handle has an
 * async resource or an id (else undefined), `kAsyncContextFrame` undefined.  Node's pending
 * timer links to its neighbours or its list: util.inspect shows a neighbouring Timeout or a
 * TimersList stand-in (one level deep, as Node's inspector shows them; ours are not always the
 * same neighbours), JSON null (Node's links are circular, and throw).  An Immediate links to
 * nothing here (Node's, to its neighbours in Node's list).
 * It must never change a handle, and never be reached from a hot path.
 */
'use strict';

const ids = require('./ids');
const { REFED, DESTROYED } = require('./flags');

/* what Node's Immediates keep under their `refed` symbol: while pending, whether referenced */
function immediateRefed(imm) {
  const f = imm._flags;
  return (f & DESTROYED) !== 0 ? null : (f & REFED) !== 0;
}

// Stand-in for the list a pending Node timer links to, shown (one level deep) as Node's is
function TimersList() {}
const listLink = Object.create(TimersList.prototype, { msecs: { value: 0, enumerable: true } });

/*
 * a timeout's view; for util.inspect (`symbols`: Node's, and `prototype`: our Timeout's, which
 * names it and whose methods treat a view, having no _flags, as foreign), or for JSON
 */
function timeoutView(timer, forInspect, symbols, prototype) {
  const pending = timer._idlePrev !== null;
  const view = {
    _idleTimeout: timer._idleTimeout,
    // Node links a newer timer through _idlePrev, ours through _idleNext
    _idlePrev: pending && forInspect ? link(timer._idleNext) : null,
    _idleNext: pending && forInspect ? link(timer._idlePrev) : null,
    _idleStart: timer._idleStart,
    _onTimeout: timer._onTimeout,
    _timerArgs: timer._timerArgs,
    _repeat: timer._repeat,
    _destroyed: (timer._flags & DESTROYED) !== 0,
  };
  return finishView(view, timer, forInspect, symbols, prototype, (timer._flags & REFED) !== 0);
}

/* a neighbour in our lists: another timeout, else the list itself (or a ring's slot) */
function link(value) {
  return value !== null && typeof value === 'object' && typeof value._flags === 'number' ? value : listLink;
}

function immediateView(imm, forInspect, symbols, prototype) {
  const view = {
    _idleNext: null,
    _idlePrev: null,
    _onImmediate: imm._onImmediate,
    _argv: imm._argv,
    _destroyed: (imm._flags & DESTROYED) !== 0,
  };
  return finishView(view, imm, forInspect, symbols, prototype, immediateRefed(imm));
}

// our own fields, which Node's handles do not have
const INTERNAL = new Set(['_flags', '_carrier', '_asyncContext']);

function finishView(view, handle, forInspect, symbols, prototype, refed) {
  for (const key of Object.keys(handle)) {
    if (!INTERNAL.has(key) && !(key in view)) view[key] = handle[key];
  }
  if (!forInspect) return view;
  const ctx = handle._asyncContext;
  const resource = ctx !== null && typeof ctx === 'object' && typeof ctx.asyncId === 'function' ? ctx : null;
  for (const symbol of symbols.all) {
    let value;
    if (symbol === symbols.refed) value = refed;
    else if (symbol === symbols.kHasPrimitive) value = ids.knownId(handle) !== undefined;
    else if (symbol === symbols.asyncId) value = resource !== null ? resource.asyncId() : ids.knownId(handle);
    else if (symbol === symbols.triggerId && resource !== null) value = resource.triggerAsyncId();
    view[symbol] = value;
  }
  Object.setPrototypeOf(view, prototype);
  return view;
}

module.exports = { timeoutView, immediateView, immediateRefed };
