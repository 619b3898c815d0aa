/*
 * timers: the public functions setImmediate, clearImmediate, setTimeout, clearTimeout,
 * setInterval, clearInterval and currentTimestamp, with their knobs.
 *
 * Owns argument handling with Node's exact behaviour: a non-function callback gets Node's own
 * TypeError (ERR_INVALID_ARG_TYPE, produced by Node's validator so message and code always
 * match the running version); a delay outside [MIN_TIMEOUT, MAX_TIMEOUT] becomes MIN_TIMEOUT,
 * with Node's TimeoutOverflowWarning above 2^31-1; clear*() ignores null, undefined, unknown ids
 * and foreign objects, and hands native handles (made before install) to Node's own clear*.
 * The knobs live on the functions as the original qtimers had them: setImmediate.maxTickDepth,
 * setTimeout.MIN_TIMEOUT, setTimeout.MAX_TIMEOUT, and setTimeout.exactStart.
 * It must never touch globals (install.js does) and never keep per-call state of its own.
 */
'use strict';

const natives = require('./natives');
const util = require('util');
const scheduler = require('./scheduler');
const ids = require('./ids');
const context = require('./context');
const clock = require('./clock');
const { Timeout, TimeoutWithExtras, Immediate, ImmediateWithExtras } = require('./handles');

const { REFED, EXTRA, CONTEXT, REPEAT, settings } = scheduler;
const nativeSetImmediate = natives.setImmediate;
const nativeSetTimeout = natives.setTimeout;
const nativeClearTimeout = natives.clearTimeout;
const nativeClearImmediate = natives.clearImmediate;
const proc = process;
const contextState = context.state;

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
  if (n <= 2 && contextState.mode === 0) return scheduledTimeout(new Timeout(callback, delayOf(after), REFED));
  const args = n <= 2 ? undefined : n === 3 ? [arg1] : n === 4 ? [arg1, arg2] : n === 5 ? [arg1, arg2, arg3] : restOf(arguments, 2);
  return scheduledTimeout(withExtras(callback, delayOf(after), REFED, args));
}

function setInterval(callback, repeat, arg1, arg2, arg3) {
  if (typeof callback !== 'function') return nativeSetTimeout(callback);   // throws Node's error
  const n = arguments.length;
  if (n <= 2 && contextState.mode === 0) return scheduledTimeout(new Timeout(callback, delayOf(repeat), REFED | REPEAT));
  const args = n <= 2 ? undefined : n === 3 ? [arg1] : n === 4 ? [arg1, arg2] : n === 5 ? [arg1, arg2, arg3] : restOf(arguments, 2);
  return scheduledTimeout(withExtras(callback, delayOf(repeat), REFED | REPEAT, args));
}

function scheduledTimeout(timer) {
  scheduler.addTimeout(timer);
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
  if (contextState.mode === 0) return new TimeoutWithExtras(callback, after, flags, args, null);
  // the context is the timer's own async resource, which answers hasRef() from the timer
  const timer = new TimeoutWithExtras(callback, after, flags | CONTEXT, args, null);
  timer._asyncContext = context.capture('Timeout', timer);
  return timer;
}

function clearTimeout(timer) {
  if (timer instanceof Timeout) {
    scheduler.cancelTimeout(timer);
  } else if (typeof timer === 'number' || typeof timer === 'string') {
    const mine = ids.timerWithId(timer);
    if (mine !== undefined) scheduler.cancelTimeout(mine);
    else nativeClearTimeout(timer);     // an id of a native timer made before install
  } else if (timer !== null && typeof timer === 'object') {
    nativeClearTimeout(timer);          // a native handle, or something Node ignores as well
  }
}

function clearInterval(timer) {
  clearTimeout(timer);
}

function setImmediate(callback, arg1, arg2, arg3) {
  if (typeof callback !== 'function') return nativeSetImmediate(callback);   // throws Node's error
  const n = arguments.length;
  let imm;
  if (n <= 1 && contextState.mode === 0) {
    imm = new Immediate(callback, REFED);
  } else {
    const args = n <= 1 ? undefined : n === 2 ? [arg1] : n === 3 ? [arg1, arg2] : n === 4 ? [arg1, arg2, arg3] : restOf(arguments, 1);
    const tracked = contextState.mode !== 0;
    imm = new ImmediateWithExtras(callback, tracked ? REFED | CONTEXT : REFED, args, null);
    if (tracked) imm._asyncContext = context.capture('Immediate', imm);
  }
  scheduler.addImmediate(imm);
  return imm;
}

// Node's own clearImmediate miscounts its pending immediates when given any object that is not
// one of its Immediates, so only genuine native handles (made before install) are passed on.
const NativeImmediate = (function nativeImmediateClass() {
  const probe = nativeSetImmediate(function probe() {});
  nativeClearImmediate(probe);
  return probe.constructor;
})();

function clearImmediate(imm) {
  if (imm instanceof Immediate) scheduler.cancelImmediate(imm);
  else if (imm instanceof NativeImmediate) nativeClearImmediate(imm);
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

function toNumber(name, value) {
  const n = Number(value);
  if (typeof value !== 'number' && typeof value !== 'string' || !Number.isFinite(n)) {
    throw new TypeError(`${name} must be a finite number, got ${util.inspect(value)}`);
  }
  return n;
}

Object.defineProperty(setImmediate, 'maxTickDepth', {
  enumerable: true,
  get() { return settings.maxTickDepth; },
  set(value) { settings.maxTickDepth = Math.trunc(toNumber('setImmediate.maxTickDepth', value)); },
});

Object.defineProperty(setImmediate, 'maxTurnMs', {
  enumerable: true,
  get() { return settings.maxTurnMs; },
  set(value) {
    const n = Number(toNumber('setImmediate.maxTurnMs', value === Infinity ? 0 : value));
    if (n < 0) throw new RangeError(`setImmediate.maxTurnMs must be >= 0, got ${n}`);
    settings.maxTurnMs = value === Infinity ? Infinity : n;
  },
});

Object.defineProperty(setTimeout, 'MIN_TIMEOUT', {
  enumerable: true,
  get() { return limits.min; },
  set(value) {
    const n = toNumber('setTimeout.MIN_TIMEOUT', value);
    if (n < 0 || n > limits.max) throw new RangeError(`setTimeout.MIN_TIMEOUT must be in [0, ${limits.max}], got ${n}`);
    limits.min = n;
  },
});

Object.defineProperty(setTimeout, 'MAX_TIMEOUT', {
  enumerable: true,
  get() { return limits.max; },
  set(value) {
    const n = toNumber('setTimeout.MAX_TIMEOUT', value);
    if (n < limits.min || n > TIMEOUT_MAX) throw new RangeError(`setTimeout.MAX_TIMEOUT must be in [${limits.min}, ${TIMEOUT_MAX}], got ${n}`);
    limits.max = n;
  },
});

Object.defineProperty(setTimeout, 'exactStart', {
  enumerable: true,
  get() { return settings.exactStart; },
  set(value) { settings.exactStart = Boolean(value); },
});

// util.promisify(setTimeout) and util.promisify(setImmediate) are qtimers' own timers/promises
// functions, as Node's are its own.  Required when asked for: promises.js is built on this module.
Object.defineProperty(setTimeout, util.promisify.custom, {
  enumerable: true,
  get() { return require('./promises').setTimeout; },
});
Object.defineProperty(setImmediate, util.promisify.custom, {
  enumerable: true,
  get() { return require('./promises').setImmediate; },
});

module.exports = {
  setImmediate, clearImmediate,
  setTimeout, clearTimeout,
  setInterval, clearInterval,
  currentTimestamp,
  Timeout, Immediate,
};
