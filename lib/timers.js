/*
 * timers: the public functions setImmediate, clearImmediate, setTimeout, clearTimeout,
 * setInterval, clearInterval and currentTimestamp, with their knobs.
 *
 * Owns argument handling with Node's exact behaviour: a non-function callback gets Node's own
 * TypeError (ERR_INVALID_ARG_TYPE, produced by Node's validator so message and code always
 * match the running version); a delay outside [MIN_TIMEOUT, MAX_TIMEOUT] becomes MIN_TIMEOUT,
 * with Node's TimeoutOverflowWarning above MAX_TIMEOUT (Node's own text above 2^31-1); clear*()
 * of anything but our own handles and ids does what Node's does with it: Node's clearTimeout is
 * handed it, and Node's clearImmediate (which miscounts its pending immediates when handed a
 * non-Immediate it does not ignore) is reproduced for those: the same TypeError, the same writes.
 * The knobs live on the functions as the original qtimers had them: setImmediate.maxTickDepth,
 * setImmediate.maxTurnMs, setTimeout.MIN_TIMEOUT, setTimeout.MAX_TIMEOUT and
 * setTimeout.exactStart, each defined with knobs.js, which refuses a value of the wrong type or
 * range with Node's errors.
 * It must never touch globals (install.js does) and never keep per-call state of its own.
 */
'use strict';

// qtimers' own code from here to the end() at the bottom (own-frames.js)
const ownFrom = require('./own-frames').begin();

const natives = require('./natives');
const immediates = require('./immediates');
const timeouts = require('./timeouts');
const ids = require('./ids');
const context = require('./context');
const clock = require('./clock');
const knobs = require('./knobs');
const coarse = require('./coarse');
const handles = require('./handles');
const { Timeout, TimeoutWithExtras, Immediate, ImmediateWithExtras, isTimeout, isImmediate } = handles;

const { REFED, CONTEXT, REPEAT } = require('./flags');
const nativeSetImmediate = natives.setImmediate;
const nativeSetTimeout = natives.setTimeout;
const nativeClearTimeout = natives.clearTimeout;
const nativeClearImmediate = natives.clearImmediate;
const proc = process;
const contextState = context.state;
const NONE = context.NONE;

const TIMEOUT_MAX = 2 ** 31 - 1;
const limits = {
  min: 1,
  max: TIMEOUT_MAX,
};

// Node >= 23 also warns, once each, about negative and NaN delays; follow the Node we run on.
const warnsNegativeAndNaN = Number(proc.versions.node.split('.')[0]) >= 23;
let warnedNegative = false;
let warnedNaN = false;

function delayOf(after) {
  if (after === undefined) return limits.min;
  after *= 1;   // coerce as Node does (and throw as Node does for a Symbol or a BigInt)
  if (!(after >= limits.min && after <= limits.max)) {
    if (after > TIMEOUT_MAX) {
      warn(`${after} does not fit into a 32-bit signed integer.`, 'TimeoutOverflowWarning');
    } else if (after > limits.max) {
      // a lowered MAX_TIMEOUT overflows as 2^31-1 does natively: warned every time, not silent
      warn(`${after} is more than setTimeout.MAX_TIMEOUT (${limits.max}).`, 'TimeoutOverflowWarning');
    } else if (warnsNegativeAndNaN) {
      if (after < 0 && !warnedNegative) {
        warnedNegative = true;
        warn(`${after} is a negative number.`, 'TimeoutNegativeWarning');
      } else if (after !== after && !warnedNaN) {
        warnedNaN = true;
        warn(`${after} is not a number.`, 'TimeoutNaNWarning');
      }
    }
    after = limits.min;
  }
  return after;
}

function warn(what, type) {
  proc.emitWarning(`${what}\nTimeout duration was set to ${limits.min}.`, type);
}

function setTimeout(callback, after, arg1, arg2, arg3) {
  if (typeof callback !== 'function') return nativeSetTimeout(callback);   // throws Node's error
  const n = arguments.length;
  if (n <= 2 && contextState.mode === NONE) return scheduledTimeout(new Timeout(callback, delayOf(after), REFED));
  const args = n <= 2 ? undefined : n === 3 ? [arg1] : n === 4 ? [arg1, arg2] : n === 5 ? [arg1, arg2, arg3] : restOf(arguments, 2);
  return scheduledTimeout(withExtras(callback, delayOf(after), REFED, args));
}

function setInterval(callback, repeat, arg1, arg2, arg3) {
  if (typeof callback !== 'function') return nativeSetTimeout(callback);   // throws Node's error
  const n = arguments.length;
  if (n <= 2 && contextState.mode === NONE) return scheduledTimeout(new Timeout(callback, delayOf(repeat), REFED | REPEAT));
  const args = n <= 2 ? undefined : n === 3 ? [arg1] : n === 4 ? [arg1, arg2] : n === 5 ? [arg1, arg2, arg3] : restOf(arguments, 2);
  return scheduledTimeout(withExtras(callback, delayOf(repeat), REFED | REPEAT, args));
}

function scheduledTimeout(timer) {
  timeouts.addTimeout(timer);
  return timer;
}

// More than three arguments for the callback (rare): copied from the arguments object, which
// is passed on only on that path.  Up to three come as parameters, so that the common calls
// never need the arguments object itself.
function restOf(argumentsObject, from) {
  const args = new Array(argumentsObject.length - from);
  for (let i = from; i < argumentsObject.length; i++) args[i - from] = argumentsObject[i];
  return args;
}

/* a timeout with arguments (an array, or undefined) and/or the async context current now */
function withExtras(callback, after, flags, args) {
  if (contextState.mode === NONE) return new TimeoutWithExtras(callback, after, flags, args, null);
  // the context is the timer's own async resource, which answers hasRef() from the timer
  const timer = new TimeoutWithExtras(callback, after, flags | CONTEXT, args, null);
  timer._asyncContext = context.timerResource('Timeout', timer);
  return timer;
}

function clearTimeout(timer) {
  if (isTimeout(timer)) {
    timeouts.cancelTimeout(timer);
  } else if (typeof timer === 'number' || typeof timer === 'string') {
    const mine = ids.timerWithId(timer);
    if (mine !== undefined) timeouts.cancelTimeout(mine);
    else nativeClearTimeout(timer);     // an id of a native timer (made before install or after uninstall)
  } else {
    // a native handle, or anything else: Node's clearTimeout does with it what it does natively
    // (nothing for most values; it touches only objects that carry an _onTimeout)
    nativeClearTimeout(timer);
  }
}

function clearInterval(timer) {
  clearTimeout(timer);
}

function setImmediate(callback, arg1, arg2, arg3) {
  if (typeof callback !== 'function') return nativeSetImmediate(callback);   // throws Node's error
  const n = arguments.length;
  let imm;
  if (n <= 1 && contextState.mode === NONE) {
    imm = new Immediate(callback, REFED);
  } else {
    const args = n <= 1 ? undefined : n === 2 ? [arg1] : n === 3 ? [arg1, arg2] : n === 4 ? [arg1, arg2, arg3] : restOf(arguments, 1);
    const tracked = contextState.mode !== NONE;
    imm = new ImmediateWithExtras(callback, tracked ? REFED | CONTEXT : REFED, args, null);
    if (tracked) imm._asyncContext = context.timerResource('Immediate', imm);
  }
  immediates.addImmediate(imm);
  return imm;
}

// Node's own handle classes, found from one native handle of each kind, made and cleared at
// once: handles.js serves a foreign `this` with their methods, and only genuine native
// Immediates are handed to Node's clearImmediate, which miscounts its pending immediates when
// given anything else that it does not ignore.
const immediateProbe = nativeSetImmediate(function probe() {});
nativeClearImmediate(immediateProbe);
const timeoutProbe = nativeSetTimeout(function probe() {}, 1);
nativeClearTimeout(timeoutProbe);
handles.useNatives({
  timeoutPrototype: timeoutProbe.constructor.prototype,
  immediatePrototype: immediateProbe.constructor.prototype,
  timeout: timeoutProbe,
  immediate: immediateProbe,
  clearImmediate,
});

// The symbol under which Node's Immediates keep their ref state (written to null by Node's
// clearImmediate, also on an object it mistakes for an Immediate), if this Node has one.
const immediateRefedSymbol = Object.getOwnPropertySymbols(immediateProbe).find((s) => s.description === 'refed');
const immediateAsyncIdSymbol = Object.getOwnPropertySymbols(immediateProbe).find((s) => s.description === 'asyncId');

// Node >= 24 ignores anything without an _onImmediate, and empties _argv too, when it clears;
// older Nodes clear anything truthy that is not marked _destroyed (their source tells which).
const clearsOnlyWithCallback = /\?\._onImmediate/.test(Function.prototype.toString.call(nativeClearImmediate));
const clearsArgv = /cleanImmediate/.test(Function.prototype.toString.call(nativeClearImmediate));

function clearImmediate(imm) {
  if (isImmediate(imm)) immediates.cancelImmediate(imm);
  else clearNonImmediate(imm);
}

/*
 * what Node's clearImmediate does to a value that is not an Immediate, without its miscount of
 * pending immediates: on a primitive, the strict-mode assignment throws the very TypeError
 * Node's does ("Cannot create property '_destroyed' on number '42'"); an object gets Node's writes
 */
function clearNonImmediate(imm) {
  // Node's own reads first, in Node's order (a Proxy's traps see what Node's would make them see)
  if (clearsOnlyWithCallback ? !(imm != null && imm._onImmediate) : !imm) return;
  if (imm._destroyed) return;
  // a genuine Node Immediate (it carries Node's async id): Node's clearImmediate counts it right
  if (immediateAsyncIdSymbol !== undefined && typeof imm[immediateAsyncIdSymbol] === 'number') {
    nativeClearImmediate(imm);
    return;
  }
  imm._destroyed = true;
  if (immediateRefedSymbol !== undefined) imm[immediateRefedSymbol] = null;
  if (clearsArgv) {
    imm._onImmediate = undefined;
    imm._argv = undefined;
  } else {
    imm._onImmediate = null;
  }
  // Node unlinks it from its immediate list, which it is not in: only its own links change
  if (imm._idleNext) imm._idleNext._idlePrev = imm._idlePrev;
  if (imm._idlePrev) imm._idlePrev._idleNext = imm._idleNext;
  imm._idleNext = null;
  imm._idlePrev = null;
}

/*
 * the scheduling timestamp, as epoch milliseconds: what setTimeout stamps timers with now.  It
 * reads the clock (and so brings the batch's timestamp up to date): a program that asks for the
 * time should get the time, even deep into a long callback.
 */
function currentTimestamp() {
  return clock.epochNow();
}

// ---------------------------------------------------------------- knobs

// Each knob takes only values of its type, checked as Node checks an option (knobs.js): no
// string is coerced, and a refused value leaves the setting as it was.
knobs.define(setImmediate, 'maxTickDepth', {
  type: 'integer',   // any safe integer: the negative ones are a mode of their own
  get() { return immediates.settings.maxTickDepth; },
  set(value) { immediates.settings.maxTickDepth = value; },
});

knobs.define(setImmediate, 'maxTurnMs', {
  type: 'number',
  min: 0,   // Infinity included: no time limit on a turn
  get() { return immediates.settings.maxTurnMs; },
  set(value) { immediates.settings.maxTurnMs = value; },
});

knobs.define(setTimeout, 'MIN_TIMEOUT', {
  type: 'number',
  min: 0,
  max: () => limits.max,
  get() { return limits.min; },
  set(value) { limits.min = value; },
});

knobs.define(setTimeout, 'MAX_TIMEOUT', {
  type: 'number',
  min: () => limits.min,
  max: TIMEOUT_MAX,
  get() { return limits.max; },
  set(value) { limits.max = value; },
});

knobs.define(setTimeout, 'exactStart', {
  type: 'boolean',
  get() { return timeouts.settings.exactStart; },
  set(value) { timeouts.settings.exactStart = value; },
});

// coarse timeouts (coarse.js): off by default; delays >= coarseFrom are coarse while on
knobs.define(setTimeout, 'coarse', {
  type: 'boolean',
  get() { return coarse.settings.on; },
  set(value) { coarse.setOn(value); },
});

knobs.define(setTimeout, 'coarseFrom', {
  type: 'number',
  min: 1,
  max: TIMEOUT_MAX,
  get() { return coarse.settings.from; },
  set(value) { coarse.setFrom(value); },
});

/* qtimers.coarse(timer): this Timeout (or interval) is coarse whatever its delay and the knob */
function coarseTimer(timer) {
  if (!isTimeout(timer)) {
    const err = knobs.argumentError('timer', 'Timeout', timer, coarseTimer);
    err.message = err.message.replace('must be of type Timeout', 'must be an instance of Timeout');
    throw err;
  }
  coarse.mark(timer);
  return timer;
}

// Each function's length is that of Node's own on this Node (setTimeout's is 5 on Node 18 and 20,
// 2 from Node 22 on): our parameter lists are made for speed, not for their count.
const exported = { setImmediate, clearImmediate, setTimeout, clearTimeout, setInterval, clearInterval };
for (const name of Object.keys(exported)) {
  const nodeFunction = natives.nodeFunction(natives[name]);
  if (nodeFunction) Object.defineProperty(exported[name], 'length', { value: nodeFunction.length });
}

module.exports = {
  setImmediate, clearImmediate,
  setTimeout, clearTimeout,
  setInterval, clearInterval,
  currentTimestamp,
  coarse: coarseTimer,
  Timeout, Immediate,
};

require('./own-frames').end(ownFrom);
