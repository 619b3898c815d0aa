/*
 * handles: the Timeout and Immediate objects that setTimeout, setInterval and setImmediate return.
 *
 * Owns their shape and their public methods (ref, unref, hasRef, refresh, close,
 * Symbol.toPrimitive, Symbol.dispose) and the Node-compatible properties programs and Node's own
 * tests read (_onTimeout, _idleTimeout, _idleStart, _repeat, _destroyed, _onImmediate).  A pending
 * timeout costs one object of six fields, under half of what a native one costs, and a pending
 * immediate one of two, because everything a handle rarely needs lives elsewhere: arguments and
 * an async context in a subclass used only when present, state in one small-integer bit field,
 * the numeric id in ids.js.
 * `_repeat` and `_destroyed` are accessors over those bits, through which Node's own
 * clearTimeout/clearImmediate, when handed one of our handles, cancel it properly.  A method
 * called with a `this` that is not one of our handles (a foreign object, a primitive,
 * Object.create(Timeout.prototype)) is Node's own method called with it, so it does exactly what
 * it does natively (usually nothing; a TypeError for undefined), never an internal error.
 * It must never schedule, run or count anything itself: that is immediates.js's and timeouts.js's.
 */
'use strict';

// qtimers' own code from here to the end() at the bottom (own-frames.js)
const ownFrom = require('./own-frames').begin();

const util = require('./builtins').util;
const immediates = require('./immediates');
const timeouts = require('./timeouts');
const ids = require('./ids');

const { REFED, DESTROYED, REPEAT, EXTRA, CLEARED } = require('./flags');
const SymbolDispose = Symbol.dispose;
const SymbolToPrimitive = Symbol.toPrimitive;
const inspectCustom = util.inspect.custom;

// The prototypes of Node's own Timeout and Immediate, whose methods serve a foreign `this`.
// timers.js finds them (it makes the one native handle of each kind that takes) and hands them
// over before any handle of ours exists.
let nativeTimeout = null;
let nativeImmediate = null;

function useNativePrototypes(timeoutPrototype, immediatePrototype) {
  nativeTimeout = timeoutPrototype;
  nativeImmediate = immediatePrototype;
}

/* one of our timeouts: made by our constructor (Object.create(Timeout.prototype) has no _flags) */
function isTimeout(value) {
  return value instanceof Timeout && typeof value._flags === 'number';
}

function isImmediate(value) {
  return value instanceof Immediate && typeof value._flags === 'number';
}

// Cleared before it was done: its delay is -1, as Node's, and its period (_repeat) is kept by
// timeouts.js.
function periodKeptAside(timer) {
  return (timer._flags & CLEARED) !== 0 && timer._idleTimeout === -1;
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
    // Node's clearTimeout marks the handle destroyed before anything else: cancel it for real
    if (value && !(this._flags & DESTROYED)) timeouts.cancelTimeout(this);
  }

  // Node's interval period; a program may also turn a timeout into an interval by setting it
  get _repeat() {
    if (!isTimeout(this)) return undefined;
    if ((this._flags & REPEAT) === 0) return null;
    return periodKeptAside(this) ? timeouts.clearedPeriod(this) : this._idleTimeout;
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
        if (periodKeptAside(this)) timeouts.setClearedPeriod(this, value);
        else this._idleTimeout = value;
      }
    } else {
      this._flags &= ~REPEAT;
    }
  }

  ref() {
    if (!isTimeout(this)) return nativeTimeout.ref.call(this);
    timeouts.refTimeout(this);
    return this;
  }

  unref() {
    if (!isTimeout(this)) return nativeTimeout.unref.call(this);
    timeouts.unrefTimeout(this);
    return this;
  }

  hasRef() {
    if (!isTimeout(this)) return nativeTimeout.hasRef.call(this);
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
    if (!isTimeout(this)) return nativeTimeout[SymbolToPrimitive].call(this);
    return ids.idFor(this);
  }

  [inspectCustom](depth, options, inspect) {
    if (!isTimeout(this)) return nativeTimeout[inspectCustom].call(this, depth, options, inspect);
    const f = this._flags;
    const state = (f & CLEARED) ? 'cleared' : (this._idlePrev !== null ? 'pending' : (f & DESTROYED) ? 'done' : 'running');
    const fn = this._onTimeout;
    const props = {
      delay: this._idleTimeout,
      repeat: (f & REPEAT) !== 0,
      ref: (f & REFED) !== 0,
      state,
      callback: typeof fn === 'function' ? fn : null,
    };
    return `${f & REPEAT ? 'Interval' : 'Timeout'} ${inspect(props, options)}`;
  }
}

// Defaults for what only the subclass stores, so every handle answers the same reads.
Timeout.prototype._timerArgs = undefined;
Timeout.prototype._asyncContext = null;

if (SymbolDispose !== undefined) {
  Timeout.prototype[SymbolDispose] = function dispose() {
    if (isTimeout(this)) timeouts.cancelTimeout(this);
    else nativeDispose(nativeTimeout, this);
  };
}

// A timeout with arguments and/or an async context: two more fields, only when needed.  Named
// Timeout too, so that constructor.name and stack traces read as Node's do.
const BaseTimeout = Timeout;
const TimeoutWithExtras = class Timeout extends BaseTimeout {
  constructor(callback, after, flags, args, asyncContext) {
    super(callback, after, flags | EXTRA);
    this._timerArgs = args;
    this._asyncContext = asyncContext;
  }
};

class Immediate {
  constructor(callback, flags) {
    this._onImmediate = callback;
    this._flags = flags;
    // the native Immediate that carries this one to its turn, while it does (immediates.js)
    this._carrier = null;
  }

  // Node's own clearImmediate (a reference taken before install, or the timers module after a
  // globals-only install), handed one of ours, reads _destroyed and, if it is false, decrements
  // its count of pending native immediates, which then stalls Node's immediates.  So reading
  // _destroyed of a pending qtimers Immediate cancels it and answers true: Node's clearImmediate
  // then cancels ours and leaves its own count alone.  Node documents no _destroyed; qtimers
  // itself never reads it.
  get _destroyed() {
    if (!isImmediate(this)) return undefined;
    if (!(this._flags & DESTROYED)) immediates.cancelImmediate(this);
    return true;
  }

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
    if (!isImmediate(this)) return nativeImmediate.hasRef.call(this);
    return (this._flags & REFED) !== 0;
  }

  [inspectCustom](depth, options, inspect) {
    // Node's Immediate has no inspector: returning `this` makes util.inspect format it plainly
    if (!isImmediate(this)) return this;
    const f = this._flags;
    const fn = this._onImmediate;
    const props = {
      ref: (f & REFED) !== 0,
      state: (f & CLEARED) ? 'cleared' : (f & DESTROYED) ? 'done' : 'pending',
      callback: typeof fn === 'function' ? fn : null,
    };
    return `Immediate ${inspect(props, options)}`;
  }
}

// Defaults for what only the subclass stores, as for Timeout.
Immediate.prototype._argv = undefined;
Immediate.prototype._asyncContext = null;

if (SymbolDispose !== undefined) {
  Immediate.prototype[SymbolDispose] = function dispose() {
    if (isImmediate(this)) immediates.cancelImmediate(this);
    else nativeDispose(nativeImmediate, this);
  };
}

// An immediate with arguments and/or an async context, as TimeoutWithExtras is for timeouts.
const BaseImmediate = Immediate;
const ImmediateWithExtras = class Immediate extends BaseImmediate {
  constructor(callback, flags, args, asyncContext) {
    super(callback, flags | EXTRA);
    this._argv = args;
    this._asyncContext = asyncContext;
  }
};

/* Node's dispose with a foreign `this`, where this Node has one (it is clear*(this)) */
function nativeDispose(nativePrototype, self) {
  const dispose = nativePrototype[SymbolDispose];
  if (typeof dispose === 'function') dispose.call(self);
}

module.exports = {
  Timeout, TimeoutWithExtras, Immediate, ImmediateWithExtras,
  isTimeout, isImmediate, useNativePrototypes,
};

require('./own-frames').end(ownFrom);
