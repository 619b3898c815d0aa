/*
 * handles: the Timeout and Immediate objects that setTimeout, setInterval and setImmediate return.
 *
 * Owns their shape, their public methods (ref, unref, hasRef, refresh, close, Symbol.toPrimitive,
 * Symbol.dispose), and what programs, tools and Node's own code read of them: Node's fields
 * (_idleTimeout, _idleStart, _onTimeout, _timerArgs, _repeat, _destroyed; _onImmediate, _argv,
 * _destroyed, _idleNext, _idlePrev), what util.inspect and JSON.stringify are handed (views with
 * Node's fields, from handle-views.js, through Node's own inspector for a Timeout), and an
 * Immediate's `refed` symbol, which Node's code reads.  A pending timeout costs one object of
 * six fields, under half of what a native one costs, and a pending immediate one of three,
 * because everything a handle rarely needs lives elsewhere: arguments and an async context in
 * two more fields, only in handles made with them (another constructor, the same prototype),
 * state in one small-integer bit field, the numeric id in ids.js.  The rest of Node's fields are
 * accessors or defaults on the prototype.
 * Node's own clearTimeout (a reference taken before install) handed one of ours cancels it
 * through the `_destroyed` setter it calls; Node's own clearImmediate is answered `_destroyed`
 * true, after ours is cancelled, when the reader is its frame (see immediateDestroyed).  A
 * method called with a `this` that is not one of our handles (a foreign object, a primitive, a
 * Proxy, Object.create(Timeout.prototype)) is Node's own method called with it, so it does and
 * throws exactly what it does natively; one of our handles of the other kind is answered as
 * Node's method answers Node's handle of that kind, except that Timeout's ref and unref leave an
 * Immediate as it is (Node's change Node's count of timers for good).  Reads are free of side
 * effects, except that Node's Timeout toPrimitive called on an Immediate gives it an async id.
 * It must never schedule, run or count anything itself: that is immediates.js's and timeouts.js's.
 */
'use strict';

// qtimers' own code from here to the end() at the bottom (own-frames.js)
const ownFrom = require('./own-frames').begin();

const util = require('./builtins').util;
const immediates = require('./immediates');
const timeouts = require('./timeouts');
const { clearedPeriod, setClearedPeriod } = require('./cleared-periods');
const ids = require('./ids');
const { timeoutView, immediateView, immediateRefed } = require('./handle-views');

const { REFED, DESTROYED, REPEAT, EXTRA, CLEARED } = require('./flags');
const SymbolDispose = Symbol.dispose;
const SymbolToPrimitive = Symbol.toPrimitive;
const inspectCustom = util.inspect.custom;
const ObjectGetPrototypeOf = Object.getPrototypeOf;

// What timers.js finds of Node's own handles before any handle of ours exists (useNatives):
// their prototypes, whose methods serve a foreign `this`; the symbols Node keys their state
// by, in Node's order; and timers.js's clearImmediate, which Node's Immediate dispose calls.
let nativeTimeout = null;
let nativeImmediate = null;
let timeoutSymbols = [];
let immediateSymbols = [];
let clearImmediateOf = null;

/* one of our timeouts: an own _flags (read first: Node's methods also begin with a get, so a
   revoked Proxy throws Node's message) and our prototype itself, so Object.create(timer) or a
   Proxy of anything else is foreign */
function isTimeout(value) {
  return typeof value === 'object' && value !== null && typeof value._flags === 'number' &&
    ObjectGetPrototypeOf(value) === TimeoutPrototype;
}

function isImmediate(value) {
  return typeof value === 'object' && value !== null && typeof value._flags === 'number' &&
    ObjectGetPrototypeOf(value) === ImmediatePrototype;
}

// Cleared before it was done: its delay is -1, as Node's, and its period (_repeat) is kept in
// cleared-periods.js.
function periodKeptAside(timer) {
  return (timer._flags & CLEARED) !== 0 && timer._idleTimeout === -1;
}

/* a prototype's default for a field only some handles have: writable, so assignments make it own */
function defineDefault(prototype, name, value) {
  Object.defineProperty(prototype, name, { value, writable: true, enumerable: false, configurable: true });
}

// a foreign object's own data property, as an assignment would make it where no accessor is
function defineOwn(target, name, value) {
  Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true });
}

class Timeout {
  constructor(callback, after, flags) {
    // Node's own order for Node's fields (a program listing the keys sees them so), which also
    // puts the ones refresh() reads next to the object's header
    this._idleTimeout = after;
    this._idlePrev = null;          // pending: its neighbours, or its list and slot (timeout-store.js)
    this._idleNext = null;
    this._idleStart = 0;            // scheduling ms when (re)started
    this._onTimeout = callback;
    this._flags = flags;
  }

  // On a foreign object (Object.create(Timeout.prototype)) these accessors act as the plain
  // property a native Timeout has: absent until set.
  get _destroyed() {
    if (!isTimeout(this)) return undefined;
    return (this._flags & DESTROYED) !== 0;
  }

  set _destroyed(value) {
    if (!isTimeout(this)) {
      defineOwn(this, '_destroyed', value);
      return;
    }
    // Node's clearTimeout (and clearTimeout(id)) empties _onTimeout and then marks the handle
    // destroyed: cancel it for real.  With its callback still there (Node's clearImmediate
    // handed a Timeout, or a program), a native timeout still fires: so does ours.
    if (value && !(this._flags & DESTROYED) && !this._onTimeout) timeouts.cancelTimeout(this);
  }

  // Node's interval period; a program may also turn a timeout into an interval by setting it
  get _repeat() {
    if (!isTimeout(this)) return undefined;
    if ((this._flags & REPEAT) === 0) return null;
    return periodKeptAside(this) ? clearedPeriod(this) : this._idleTimeout;
  }

  set _repeat(value) {
    if (!isTimeout(this)) {
      defineOwn(this, '_repeat', value);
      return;
    }
    if (value) {
      this._flags |= REPEAT;
      if (typeof value === 'number' && value >= 1) {
        // a cleared timer keeps its delay of -1, as Node's; only its _repeat changes
        if (periodKeptAside(this)) setClearedPeriod(this, value);
        else this._idleTimeout = value;
      }
    } else {
      this._flags &= ~REPEAT;
    }
  }

  // On one of our Immediates, Node's would count it in or out of Node's referenced timers (which
  // it never was in), which can end the process with timers pending: it is left alone.
  ref() {
    if (isTimeout(this)) timeouts.refTimeout(this);
    else if (!isImmediate(this)) return nativeTimeout.ref.call(this);
    return this;
  }

  unref() {
    if (isTimeout(this)) timeouts.unrefTimeout(this);
    else if (!isImmediate(this)) return nativeTimeout.unref.call(this);
    return this;
  }

  hasRef() {
    if (!isTimeout(this)) return nativeTimeout.hasRef.call(this);   // an Immediate's `refed`
    return (this._flags & REFED) !== 0;
  }

  refresh() {
    if (!isTimeout(this)) return nativeTimeout.refresh.call(this);
    timeouts.refreshTimeout(this);
    return this;
  }

  close() {
    if (!isTimeout(this)) return nativeTimeout.close.call(this);
    timeouts.cancelTimeout(this);
    return this;
  }

  [Symbol.toPrimitive]() {
    if (isTimeout(this)) return ids.idFor(this);
    // an Immediate: its async id, as Node's answers (no clearTimeout finds it by that id)
    if (isImmediate(this)) return ids.asyncIdOf(this);
    return nativeTimeout[SymbolToPrimitive].call(this);
  }

  // Node's own inspector (its fields, one level deep) over a view of ours with Node's fields
  [inspectCustom](depth, options, inspect) {
    const view = isTimeout(this) ? timeoutView(this, true, timeoutSymbols, TimeoutPrototype) :
      isImmediate(this) ? immediateView(this, true, immediateSymbols, ImmediatePrototype) : this;
    return nativeTimeout[inspectCustom].call(view, depth, options, inspect);
  }

  // JSON.stringify: Node's fields, never our internals nor a circular link
  toJSON() {
    return isTimeout(this) ? timeoutView(this, false) : this;
  }
}

const TimeoutPrototype = Timeout.prototype;

// What Node's handles hold and ours keep elsewhere or only when needed: every handle answers the
// same reads.  _idleNext and _idlePrev are writable data properties, since Node's list code
// assigns them on an Immediate handed to it.
// Not enumerable: for-in and util.inspect's showHidden list no field of the prototype.
defineDefault(TimeoutPrototype, '_timerArgs', undefined);

if (SymbolDispose !== undefined) {
  Timeout.prototype[SymbolDispose] = function dispose() {
    if (isTimeout(this)) timeouts.cancelTimeout(this);
    else nativeDispose(nativeTimeout, this);
  };
}

/*
 * A timeout with arguments and/or an async context: two more fields, only when needed, and the
 * same prototype (Node has one Timeout class).  A function of its own, so that the plain
 * timeouts keep their six-field shape.
 */
function TimeoutWithExtras(callback, after, flags, args, asyncContext) {
  this._idleTimeout = after;
  this._idlePrev = null;
  this._idleNext = null;
  this._idleStart = 0;
  this._onTimeout = callback;
  this._flags = flags | EXTRA;
  this._timerArgs = args;
  this._asyncContext = asyncContext;
}
TimeoutWithExtras.prototype = Timeout.prototype;

class Immediate {
  constructor(callback, flags) {
    this._onImmediate = callback;
    this._flags = flags;
    // the native Immediate that carries this one to its turn, while it does (immediates.js)
    this._carrier = null;
  }

  // a program's assignment cancels it, as Node's clearImmediate would (the getter: below)
  set _destroyed(value) {
    if (!isImmediate(this)) {
      defineOwn(this, '_destroyed', value);
      return;
    }
    if (value && !(this._flags & DESTROYED)) immediates.cancelImmediate(this);
  }

  ref() {
    if (!isImmediate(this)) return nativeImmediate.ref.call(this);
    immediates.refImmediate(this);
    return this;
  }

  unref() {
    if (!isImmediate(this)) return nativeImmediate.unref.call(this);
    immediates.unrefImmediate(this);
    return this;
  }

  hasRef() {
    // Node's reads `refed`, which a Timeout of ours keeps in its flags
    if (isTimeout(this)) return (this._flags & REFED) !== 0;
    if (!isImmediate(this)) return nativeImmediate.hasRef.call(this);
    return (this._flags & REFED) !== 0;
  }

  // Node's Immediate has no inspector: this returns a view with Node's fields, which
  // util.inspect formats as it formats Node's (for the view itself, and a foreign object,
  // returning `this` makes it format it plainly)
  [inspectCustom]() {
    return isImmediate(this) ? immediateView(this, true, immediateSymbols, ImmediatePrototype) : this;
  }

  toJSON() {
    return isImmediate(this) ? immediateView(this, false) : this;
  }
}

const ImmediatePrototype = Immediate.prototype;

/*
 * Immediate's _destroyed: whether it ran or was cleared, as Node's.  Node's own clearImmediate (a
 * reference taken before install, or the `timers` module's after a globals-only install) reads
 * it and, if false, counts one native immediate less than it has, which stalls Node's
 * immediates (qtimers' driver among them) until the next one is queued.  So when the reader is
 * Node's clearImmediate itself (its frame, found by the stack, read only while the handle is
 * pending), ours is cancelled and the answer is true: Node's then leaves its counts alone.  No
 * other read changes anything.
 */
function immediateDestroyed() {
  if (!isImmediate(this)) return undefined;
  if (this._flags & DESTROYED) return true;
  if (!calledByNodeClearImmediate()) return false;
  immediates.cancelImmediate(this);
  return true;
}
Object.defineProperty(ImmediatePrototype, '_destroyed', {
  get: immediateDestroyed,
  set: Object.getOwnPropertyDescriptor(ImmediatePrototype, '_destroyed').set,
  configurable: true,
});

const stackHolder = {};

function restoreStackSettings(prepare, limit) {
  try {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = limit;
  } catch (err) {
    // frozen: nothing was changed
  }
}
function framesOnly(error, frames) {
  return frames;
}

/* is the function that read immediateDestroyed Node's own clearImmediate? */
function calledByNodeClearImmediate() {
  const Err = Error;
  const limit = Err.stackTraceLimit;
  const prepare = Err.prepareStackTrace;
  let frames;
  try {
    Err.stackTraceLimit = 1;
    Err.prepareStackTrace = framesOnly;
    Err.captureStackTrace(stackHolder, immediateDestroyed);
    frames = stackHolder.stack;
  } catch (err) {
    frames = undefined;       // a frozen Error (a hardened realm): no frame to tell by
  } finally {
    restoreStackSettings(prepare, limit);
    stackHolder.stack = undefined;
  }
  const caller = Array.isArray(frames) ? frames[0] : undefined;
  return caller !== undefined && caller.getFunctionName() === 'clearImmediate' && caller.getFileName() === 'node:timers';
}
defineDefault(ImmediatePrototype, '_argv', undefined);
defineDefault(ImmediatePrototype, '_idleNext', null);
defineDefault(ImmediatePrototype, '_idlePrev', null);

if (SymbolDispose !== undefined) {
  Immediate.prototype[SymbolDispose] = function dispose() {
    if (isImmediate(this)) immediates.cancelImmediate(this);
    else clearImmediateOf(this);     // Node's is clearImmediate(this); timers.js's never miscounts
  };
}

// An immediate with arguments and/or an async context, as TimeoutWithExtras is for timeouts.
function ImmediateWithExtras(callback, flags, args, asyncContext) {
  this._onImmediate = callback;
  this._flags = flags | EXTRA;
  this._carrier = null;
  this._argv = args;
  this._asyncContext = asyncContext;
}
ImmediateWithExtras.prototype = Immediate.prototype;

/* Node's dispose with a foreign `this`, where this Node has one (it is clear*(this)) */
function nativeDispose(nativePrototype, self) {
  const dispose = nativePrototype[SymbolDispose];
  if (typeof dispose === 'function') dispose.call(self);
}

// ---------------------------------------------------------------- what timers.js hands over

/*
 * Node's Timeout and Immediate prototypes, one native handle of each kind (for the symbols Node
 * keys their state by), and timers.js's clearImmediate.  Node's code reads the `refed` symbol of
 * an Immediate handed to it (Node's clearImmediate, and Timeout.prototype.hasRef) and assigns
 * it: ours answers its state, and an assignment to one of ours changes nothing.
 */
function useNatives(natives) {
  nativeTimeout = natives.timeoutPrototype;
  nativeImmediate = natives.immediatePrototype;
  clearImmediateOf = natives.clearImmediate;
  timeoutSymbols = symbolsOf(natives.timeout);
  immediateSymbols = symbolsOf(natives.immediate);
  const refed = immediateSymbols.refed;
  if (refed !== undefined) {
    Object.defineProperty(Immediate.prototype, refed, {
      get() { return isImmediate(this) ? immediateRefed(this) : undefined; },
      set(value) { if (!isImmediate(this)) defineOwn(this, refed, value); },
      configurable: true,
    });
  }
}

function symbolsOf(handle) {
  const all = Object.getOwnPropertySymbols(handle);
  const byName = { all };
  for (const symbol of all) byName[symbol.description] = symbol;
  return byName;
}

module.exports = {
  Timeout, TimeoutWithExtras, Immediate, ImmediateWithExtras,
  isTimeout, isImmediate, useNatives,
};

require('./own-frames').end(ownFrom);
