/*
 * promises: qtimers' `timers/promises`: setTimeout, setImmediate, setInterval (an async
 * iterator) and scheduler.wait / scheduler.yield, with Node's results and Node's errors.
 *
 * Owns the awaitable timers, their argument handling and their cancellation.  Each is an
 * ordinary qtimers timer made with the public functions of timers.js, so it shares their
 * queues, delay rules, knobs and reference counting, and `ref: false` is handle.unref().
 * Arguments are handled step by step as the running Node's own function handles them, because
 * a program can see every step: which option is read how many times and in what order (a
 * getter counts its calls), whether a throwing getter throws or rejects, when the signal's
 * listener methods are called and with what.  The three ways Node has done it:
 * - Node 18 reads `signal` and `ref` once each outside any try (a throwing getter throws),
 *   then checks what it read (a refusal rejects);
 * - Node >= 20 checks inside a try (anything thrown rejects): the delay, the options object,
 *   `signal` read once to see whether it is undefined and, if not, once more to check it, `ref`
 *   likewise; then reads both once more, outside the try, and goes on with those values
 *   unchecked;
 * - Node 18 and 20 add the abort listener inside the Promise executor, so an error there
 *   rejects; Node >= 22 adds it after, so the error throws.  Either way the timer stays pending.
 * A value Node refuses is handed to Node's own function, in a plain object of the values
 * already read (so no getter runs again), which rejects with the running version's exact error.
 * Two traces of that remain: setInterval's first next() rejects one microtask turn later than
 * Node's (the error comes from Node's generator, in a promise), and a refused signal that is a
 * Proxy sees `'aborted' in` twice (ours, then Node's).  An abort clears the timer at once and
 * rejects with Node's own AbortError class (cause: signal.reason).  With a signal, the listener
 * is what Node adds (a bound `cancelListenerHandler`, or setInterval's `onCancel` with `once`,
 * both resisting stopImmediatePropagation() with Node's own option) and the promise returned
 * is the one Node returns: the timer's promise, settled after removeEventListener() is called.
 * It must never make a native timer for a call Node accepts, never read an option or call a
 * signal's method more or fewer times than Node, and never leave a listener on a signal once
 * its promise has settled or its iterator has finished.
 */
'use strict';

// qtimers' own code from here to the end() at the bottom (own-frames.js)
const ownFrom = require('./own-frames').begin();

const nativePromises = require('./natives').promises;
const events = require('./builtins').events;
const timers = require('./timers');
const { DESTROYED } = require('./flags');

// Captured at load: install() puts ours in their places, and a program may patch Promise.
const nativeSetTimeout = nativePromises.setTimeout;
const nativeSetImmediate = nativePromises.setImmediate;
const nativeSetInterval = nativePromises.setInterval;
const nativeScheduler = nativePromises.scheduler;
const NativeScheduler = nativeScheduler.constructor;
const nativeSchedulerWait = NativeScheduler.prototype.wait;     // Node's, wherever install() puts ours
const nativeSchedulerYield = NativeScheduler.prototype.yield;
// the intrinsic Promise, which Node's timers/promises returns even where a program or an agent
// (zone.js) replaced the global one before qtimers loaded: an async function returns it always
const NativePromise = (async function intrinsic() {})().constructor;
const PromiseReject = NativePromise.reject.bind(NativePromise);
const PromisePrototypeThen = Function.prototype.call.bind(NativePromise.prototype.then);
const FunctionPrototypeBind = Function.prototype.call.bind(Function.prototype.bind);
const ArrayIsArray = Array.isArray;

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
// Node 18 reads the options once and checks what it read; later Nodes check, then read again
const NODE_18 = NODE_MAJOR < 20;
// Node < 22 adds the abort listener inside the Promise executor, so what it throws rejects
const LISTENS_IN_EXECUTOR = NODE_MAJOR < 22;

const NO_OPTIONS = Object.freeze({ __proto__: null });   // Node's default: nothing to read

// The one scheduler object Node makes carries this symbol (ours too); its methods refuse a
// `this` without.  A Node that no longer has it: Node's scheduler is still accepted by identity.
const kScheduler = Object.getOwnPropertySymbols(nativeScheduler).find((s) => s.description === 'kScheduler') ||
  Symbol('kScheduler');
const NOT_A_SCHEDULER = Object.freeze({});   // a `this` for Node's ERR_INVALID_THIS

// Node's AbortError is not exported; events.on() throws one at once for an aborted signal.
const AbortError = (function nodeAbortError() {
  try {
    events.on(new events.EventEmitter(), 'abort', { signal: AbortSignal.abort() });
  } catch (err) {
    if (err.name === 'AbortError') return err.constructor;
  }
  // a Node whose events.on() no longer throws it: an equivalent class
  return class AbortError extends Error {
    constructor(message = 'The operation was aborted', options = undefined) {
      super(message, options);
      this.code = 'ABORT_ERR';
      this.name = 'AbortError';
    }
  };
})();

// The option by which Node's own abort listeners resist stopImmediatePropagation() from the
// listeners before them: a symbol of Node's internals, which events.addAbortListener (Node
// 18.18, 20.5) hands to the addEventListener of any signal; here, one that only looks.
const kResistStopPropagation = (function nodeResistSymbol() {
  let found;
  const probe = {
    aborted: false,
    addEventListener(type, listener, options) {
      if (options !== null && typeof options === 'object') {
        found = Object.getOwnPropertySymbols(options).find((s) => s.description === 'kResistStopPropagation');
      }
    },
    removeEventListener() {},
  };
  try {
    if (typeof events.addAbortListener === 'function') events.addAbortListener(probe, function probeListener() {});
  } catch (err) {
    // an older Node: its listeners did not resist either
  }
  return found;
})();

/* the options of the listener setTimeout and setImmediate add: a new object each time, as Node's */
function cancelListenerOptions() {
  return kResistStopPropagation === undefined ? { __proto__: null } : { __proto__: null, [kResistStopPropagation]: true };
}

/* the options of the listener setInterval adds */
function intervalListenerOptions() {
  return kResistStopPropagation === undefined ? { __proto__: null, once: true } : { __proto__: null, once: true, [kResistStopPropagation]: true };
}

// Node's SafePromise: a Promise whose then/catch/finally are its own, so that neither the
// chaining below nor its timing changes when a program patches Promise.prototype.
class SafePromise extends NativePromise {}
for (const key of Reflect.ownKeys(NativePromise.prototype)) {
  if (!Object.prototype.hasOwnProperty.call(SafePromise.prototype, key)) {
    Object.defineProperty(SafePromise.prototype, key, Object.getOwnPropertyDescriptor(NativePromise.prototype, key));
  }
}
Object.defineProperty(SafePromise, Symbol.species, Object.getOwnPropertyDescriptor(NativePromise, Symbol.species));
Object.setPrototypeOf(SafePromise.prototype, null);
Object.freeze(SafePromise.prototype);
Object.freeze(SafePromise);

/*
 * What Node returns for a timer with an abort listener: a promise that settles as `promise`
 * does once signal.removeEventListener() has been called (and whatever it returned settled;
 * if that throws or rejects, so does this), in as many microtask turns as Node's.
 */
function removingListenerWhenSettled(promise, signal, oncancel) {
  const settled = new NativePromise(capture);
  const resolve = capturedResolve;
  const reject = capturedReject;
  const followed = new SafePromise(capture);
  PromisePrototypeThen(promise, capturedResolve, capturedReject);
  capturedResolve = capturedReject = null;
  followed.finally(() => signal.removeEventListener('abort', oncancel)).then(resolve, reject);
  return settled;
}

// The Promise executor, shared: no closure per promise.  Whoever calls `new Promise(capture)`
// takes the two functions out of these right away.
let capturedResolve = null;
let capturedReject = null;
function capture(resolve, reject) {
  capturedResolve = resolve;
  capturedReject = reject;
}

// Named as Node's (a program sees 'bound cancelListenerHandler'), bound as Node's: `this` is
// the handle, and one that has run or been cleared ignores the abort.
function cancelListenerHandler(clear, reject, signal) {
  if ((this._flags & DESTROYED) === 0) {
    clear(this);
    reject(new AbortError(undefined, { cause: signal?.reason }));
  }
}

/*
 * Options that make Node >= 20 refuse `ref` as it refused it: its first read (is it undefined?)
 * and its second (the one checked) answer as they did, even when the second was undefined.
 */
function refusedRef(ref) {
  let reads = 0;
  return {
    get ref() {
      reads += 1;
      return reads === 1 && ref === undefined ? false : ref;
    },
  };
}

function isSignalLike(signal) {
  return signal !== null && typeof signal === 'object' && 'aborted' in signal;
}

function setTimeout(after, value, options = NO_OPTIONS) {
  if (options === NO_OPTIONS && (typeof after === 'number' || after === undefined)) {
    return timerPromise(true, after, value, undefined, true);
  }
  return withOptions(true, after, value, options);
}

function setImmediate(value, options = NO_OPTIONS) {
  if (options === NO_OPTIONS) return timerPromise(false, undefined, value, undefined, true);
  return withOptions(false, undefined, value, options);
}

// What readOptions() found, taken by its caller at once: the options' signal and ref when
// accepted; when refused, whether Node's own function is handed the delay (and value) too, and
// the options it is handed; when a check threw on Node >= 20, the error.
const ACCEPTED = 0;
const REFUSED = 1;
const THREW = 2;
let readSignal;
let readRef = true;
let refusedKeepsDelay = false;
let refusedWith;
let checkError;

function refuse(keepsDelay, options) {
  refusedKeepsDelay = keepsDelay;
  refusedWith = options;
  return REFUSED;
}

/*
 * Node's reading of `options` (and of the delay, when `delayChecked`), as the running version
 * does it (the header): ACCEPTED, REFUSED or THREW.  On Node 18, a getter that throws throws
 * from here; arrays are refused only where `arraysRefused` (setInterval's validateObject).
 */
function readOptions(after, options, delayChecked, arraysRefused) {
  let signal;
  let ref;
  if (NODE_18) {
    if (options === null || typeof options !== 'object' || (arraysRefused && ArrayIsArray(options))) return refuse(true, options);
    signal = options.signal;
    ref = options.ref;
    if (ref === undefined) ref = true;
    if (signal !== undefined && !isSignalLike(signal)) return refuse(false, { signal });
    if (typeof ref !== 'boolean') return refuse(false, { ref });
  } else {
    try {
      if (delayChecked && after !== undefined && typeof after !== 'number') return refuse(true, undefined);
      if (options === null || typeof options !== 'object' || ArrayIsArray(options)) return refuse(false, options);
      if (typeof options.signal !== 'undefined') {
        const checked = options.signal;
        if (checked !== undefined && !isSignalLike(checked)) return refuse(false, { signal: checked });
      }
      if (typeof options.ref !== 'undefined') {
        const checked = options.ref;
        if (typeof checked !== 'boolean') return refuse(false, refusedRef(checked));
      }
    } catch (err) {
      checkError = err;
      return THREW;
    }
    // read again, and not checked again: a getter may answer differently now, as natively
    signal = options.signal;
    ref = options.ref;
    if (ref === undefined) ref = true;
  }
  readSignal = signal;
  readRef = ref;
  return ACCEPTED;
}

/* what readOptions() left for its caller, let go here: nothing of a program's is kept */
function taken(value) {
  readSignal = refusedWith = checkError = undefined;
  return value;
}

/* what Node does with these options: a rejection, a throw, or on to timerPromise() */
function withOptions(isTimeout, after, value, options) {
  const outcome = readOptions(after, options, isTimeout, false);
  if (outcome === THREW) return PromiseReject(taken(checkError));
  if (outcome === REFUSED) return refusal(isTimeout, refusedKeepsDelay ? after : undefined, taken(refusedWith));
  const signal = taken(readSignal);
  if (signal?.aborted) return PromiseReject(new AbortError(undefined, { cause: signal.reason }));
  return timerPromise(isTimeout, after, value, signal, readRef);
}

/* Node's function refuses these arguments with its own error, in a rejected promise */
function refusal(isTimeout, after, options) {
  return isTimeout ? nativeSetTimeout(after, undefined, options) : nativeSetImmediate(undefined, options);
}

/* a promise for `value` once a timeout (isTimeout) or an immediate has run */
function timerPromise(isTimeout, after, value, signal, ref) {
  const promise = new NativePromise(capture);
  const resolve = capturedResolve;
  const reject = capturedReject;
  capturedResolve = capturedReject = null;
  let oncancel;
  try {
    // resolve() is the callback itself; with no value, a timer without arguments
    let handle;
    if (isTimeout) handle = value === undefined ? timers.setTimeout(resolve, after) : timers.setTimeout(resolve, after, value);
    else handle = value === undefined ? timers.setImmediate(resolve) : timers.setImmediate(resolve, value);
    if (!ref) handle.unref();
    if (signal) {
      oncancel = FunctionPrototypeBind(cancelListenerHandler, handle, isTimeout ? timers.clearTimeout : timers.clearImmediate, reject, signal);
      signal.addEventListener('abort', oncancel, cancelListenerOptions());
    }
  } catch (err) {
    // Node 18 coerces the delay here (a Symbol throws); a signal's addEventListener may throw.
    // Either leaves the timer pending, as Node does.
    if (!LISTENS_IN_EXECUTOR) throw err;
    reject(err);
  }
  return oncancel !== undefined ? removingListenerWhenSettled(promise, signal, oncancel) : promise;
}

async function* setInterval(after, value, options = NO_OPTIONS) {
  let signal;
  let ref = true;
  if (options !== NO_OPTIONS || (!NODE_18 && after !== undefined && typeof after !== 'number')) {
    const outcome = readOptions(after, options, true, true);
    if (outcome === THREW) throw taken(checkError);
    // Node's generator refuses what Node refuses with its own error, rethrown here by yield*
    if (outcome === REFUSED) {
      const refused = taken(refusedWith);
      return yield* (refusedKeepsDelay ? nativeSetInterval(after, value, refused) : nativeSetInterval(undefined, undefined, refused));
    }
    signal = taken(readSignal);
    ref = readRef;
  }
  if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });
  let onCancel;
  let interval;
  try {
    // Periods that elapse while the consumer is busy are counted, and yielded back to back
    // when it asks again, as Node does; `wake` is set while it waits for the next period.
    let unyielded = 0;
    let wake = null;
    interval = timers.setInterval(function onPeriod() {
      unyielded += 1;
      if (wake !== null) {
        const resume = wake;
        wake = null;
        resume();
      }
    }, after);
    if (!ref) interval.unref();
    if (signal) {
      // an arrow named as Node's, which a signal sees
      onCancel = () => {
        timers.clearInterval(interval);
        if (wake !== null) {
          const resume = wake;
          wake = null;
          resume(PromiseReject(new AbortError(undefined, { cause: signal.reason })));
        }
      };
      signal.addEventListener('abort', onCancel, intervalListenerOptions());
    }
    const waitForPeriod = function waitForPeriod(resolve) {
      wake = resolve;
    };
    while (!signal?.aborted) {
      if (unyielded === 0) await new NativePromise(waitForPeriod);
      for (; unyielded > 0; unyielded--) yield value;
    }
    throw new AbortError(undefined, { cause: signal?.reason });
  } finally {
    // aborted, or the consumer stopped (break, return(), a throw): the timer goes with it, and
    // the listener is removed as Node removes it (also when there is none, or no timer)
    timers.clearInterval(interval);
    signal?.removeEventListener('abort', onCancel);
  }
}

// Node's scheduler is the one instance of a class that cannot be constructed, and so is ours;
// both carry Node's kScheduler, which the methods of either require of their `this`.
class Scheduler {
  constructor() {
    new NativeScheduler();   // throws Node's ERR_ILLEGAL_CONSTRUCTOR
  }

  yield() {
    if (!this[kScheduler] && this !== nativeScheduler) return nativeSchedulerYield.call(NOT_A_SCHEDULER);   // throws ERR_INVALID_THIS
    return setImmediate();
  }

  wait(delay, options) {
    if (!this[kScheduler] && this !== nativeScheduler) return nativeSchedulerWait.call(NOT_A_SCHEDULER, delay, options);
    // Node 18 passes on only the signal (read once, outside any try); later Nodes all options
    return NODE_18 ? setTimeout(delay, undefined, { signal: options?.signal }) : setTimeout(delay, undefined, options);
  }
}

const scheduler = Object.create(Scheduler.prototype);
scheduler[kScheduler] = true;

module.exports = {
  setTimeout,
  setImmediate,
  setInterval,
  scheduler,
};

require('./own-frames').end(ownFrom);
