/*
 * handles: the Timeout and Immediate objects that setTimeout, setInterval and setImmediate return.
 *
 * Owns their shape and their public methods (ref, unref, hasRef, refresh, close,
 * Symbol.toPrimitive, Symbol.dispose) and the Node-compatible properties programs and Node's own
 * tests read (_onTimeout, _idleTimeout, _idleStart, _repeat, _destroyed, _onImmediate).  A pending
 * timeout costs one object of six fields, under half of what a native one costs, and a pending
 * immediate one of two, because everything a handle rarely needs lives elsewhere: arguments and
 * an async context in a subclass used only when present, state in one small-integer bit field,
 * the numeric id in the scheduler.
 * `_repeat` and `_destroyed` are accessors over those bits, through which Node's own
 * clearTimeout/clearImmediate, when handed one of our handles, cancel it properly.  Methods
 * tolerate a foreign `this` (Node's tests call unref with one) by doing nothing.
 * It must never schedule, run or count anything itself: all of that is the scheduler's.
 */
'use strict';

const util = require('util');
const scheduler = require('./scheduler');
const ids = require('./ids');

const { REFED, DESTROYED, REPEAT, EXTRA, CLEARED } = require('./flags');
const SymbolDispose = Symbol.dispose;
const inspectCustom = util.inspect.custom;

class Timeout {
  constructor(callback, after, flags) {
    this._onTimeout = callback;
    this._idleTimeout = after;
    this._idlePrev = null;          // list links: both null unless pending
    this._idleNext = null;
    this._idleStart = 0;        // scheduling ms when (re)started
    this._flags = flags;
  }

  get _destroyed() {
    return (this._flags & DESTROYED) !== 0;
  }

  set _destroyed(value) {
    // Node's clearTimeout marks the handle destroyed before anything else: cancel it for real
    if (value && !(this._flags & DESTROYED)) scheduler.cancelTimeout(this);
  }

  // Node's interval period; a program may also turn a timeout into an interval by setting it
  get _repeat() {
    return (this._flags & REPEAT) !== 0 ? this._idleTimeout : null;
  }

  set _repeat(value) {
    if (value) {
      this._flags |= REPEAT;
      if (typeof value === 'number' && value >= 1) this._idleTimeout = value;
    } else {
      this._flags &= ~REPEAT;
    }
  }

  ref() {
    if (this instanceof Timeout) scheduler.refTimeout(this);
    return this;
  }

  unref() {
    if (this instanceof Timeout) scheduler.unrefTimeout(this);
    return this;
  }

  hasRef() {
    return (this._flags & REFED) !== 0;
  }

  refresh() {
    if (this instanceof Timeout) scheduler.refreshTimeout(this);
    return this;
  }

  close() {
    if (this instanceof Timeout) scheduler.cancelTimeout(this);
    return this;
  }

  [Symbol.toPrimitive]() {
    return ids.idFor(this);
  }

  [inspectCustom](depth, options, inspect) {
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
    if (this instanceof Timeout) scheduler.cancelTimeout(this);
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
  }

  // Node's own clearImmediate (a reference taken before install, or the timers module after a
  // globals-only install), handed one of ours, reads _destroyed and, if it is false, decrements
  // its count of pending native immediates, which then stalls Node's immediates.  So reading
  // _destroyed of a pending qtimers Immediate cancels it and answers true: Node's clearImmediate
  // then cancels ours and leaves its own count alone.  Node documents no _destroyed; qtimers
  // itself never reads it.
  get _destroyed() {
    if (!(this._flags & DESTROYED)) scheduler.cancelImmediate(this);
    return true;
  }

  set _destroyed(value) {
    if (value && !(this._flags & DESTROYED)) scheduler.cancelImmediate(this);
  }

  ref() {
    if (this instanceof Immediate) scheduler.refImmediate(this);
    return this;
  }

  unref() {
    if (this instanceof Immediate) scheduler.unrefImmediate(this);
    return this;
  }

  hasRef() {
    return (this._flags & REFED) !== 0;
  }

  [inspectCustom](depth, options, inspect) {
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
    if (this instanceof Immediate) scheduler.cancelImmediate(this);
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

module.exports = { Timeout, TimeoutWithExtras, Immediate, ImmediateWithExtras };
