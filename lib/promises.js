/*
 * promises: qtimers' `timers/promises`: setTimeout, setImmediate, setInterval (an async
 * iterator) and scheduler.wait / scheduler.yield, with Node's results and Node's errors.
 *
 * Owns the awaitable timers and their cancellation.  Each is an ordinary qtimers timer made with
 * the public functions of timers.js, so it shares their queues, delay rules, knobs and reference
 * counting, and `ref: false` is handle.unref().  An abort clears the timer at once and rejects
 * with Node's own AbortError class (code ABORT_ERR, cause = signal.reason); an already aborted
 * signal rejects without making a timer.  Arguments are checked with the same tests Node's
 * functions apply (which changed in Node 20), and any call that fails them is handed to Node's
 * own function, which rejects (or throws) with the running version's exact error before it
 * makes any timer; a `this` our scheduler does not know is likewise left to Node's scheduler.
 * It must never make a native timer for a valid call, and never leave a listener on a signal
 * once its timer has fired, been aborted or been abandoned.
 */
'use strict';

const nativePromises = require('./natives').promises;
const events = require('events');
const timers = require('./timers');

// Captured at load: install() puts ours in their places.
const nativeSetTimeout = nativePromises.setTimeout;
const nativeSetImmediate = nativePromises.setImmediate;
const nativeSetInterval = nativePromises.setInterval;
const nativeScheduler = nativePromises.scheduler;
const NativeScheduler = nativeScheduler.constructor;   // install() leaves its prototype alone
const PromiseReject = Promise.reject.bind(Promise);
const ArrayIsArray = Array.isArray;

// Node 20 began to check the delay and to refuse an array as options in setTimeout and
// setImmediate (setInterval always refused one), and to hand scheduler.wait's options through.
const NODE_18 = Number(process.versions.node.split('.')[0]) < 20;

const NO_OPTIONS = Object.freeze({});

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

function abortError(signal) {
  return new AbortError(undefined, { cause: signal.reason });
}

// Node's listener resists stopImmediatePropagation() from other abort listeners;
// events.addAbortListener (Node 18.18, 20.5) is the public way to get the same.
const addAbortListener = events.addAbortListener || function addAbortListener(signal, listener) {
  signal.addEventListener('abort', listener, { once: true });
};

/* whether Node's function would accept these arguments (an undefined delay is always fine) */
function acceptable(checkDelay, after, options, arrayOptions) {
  if (checkDelay && after !== undefined && typeof after !== 'number') return false;
  if (options === null || typeof options !== 'object' || (!arrayOptions && ArrayIsArray(options))) return false;
  const signal = options.signal;
  if (signal !== undefined && (signal === null || typeof signal !== 'object' || !('aborted' in signal))) return false;
  const ref = options.ref;
  return ref === undefined || typeof ref === 'boolean';
}

// The Promise executor, shared: no closure per promise.  Whoever calls `new Promise(capture)`
// takes the two functions out of these right away.
let capturedResolve = null;
let capturedReject = null;
function capture(resolve, reject) {
  capturedResolve = resolve;
  capturedReject = reject;
}

function setTimeout(after, value, options = NO_OPTIONS) {
  if (!acceptable(!NODE_18, after, options, NODE_18)) return nativeSetTimeout(after, value, options);
  return settleLater(true, after, value, options);
}

function setImmediate(value, options = NO_OPTIONS) {
  if (!acceptable(false, undefined, options, NODE_18)) return nativeSetImmediate(value, options);
  return settleLater(false, undefined, value, options);
}

/* a promise for `value` once a timeout (isTimeout) or an immediate has run */
function settleLater(isTimeout, after, value, options) {
  const signal = options.signal;
  if (signal !== undefined && signal.aborted) return PromiseReject(abortError(signal));
  const promise = new Promise(capture);
  const resolve = capturedResolve;
  const reject = capturedReject;
  capturedResolve = capturedReject = null;
  let handle;
  try {
    if (signal === undefined) {
      // resolve() is the callback itself; with no value, a timer without arguments
      if (isTimeout) handle = value === undefined ? timers.setTimeout(resolve, after) : timers.setTimeout(resolve, after, value);
      else handle = value === undefined ? timers.setImmediate(resolve) : timers.setImmediate(resolve, value);
    } else {
      const onAbort = function onAbort() {
        clear(isTimeout, handle);
        reject(abortError(signal));
      };
      const onDone = function onDone() {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      };
      handle = isTimeout ? timers.setTimeout(onDone, after) : timers.setImmediate(onDone);
      addAbortListener(signal, onAbort);
    }
  } catch (err) {
    // Node 18 checks no delay, and rejects one that cannot be made a number (a Symbol, a
    // BigInt); an object that passes for a signal may have no addEventListener
    clear(isTimeout, handle);
    reject(err);
    return promise;
  }
  if (options.ref === false) handle.unref();
  return promise;
}

function clear(isTimeout, handle) {
  if (isTimeout) timers.clearTimeout(handle);
  else timers.clearImmediate(handle);
}

async function* setInterval(after, value, options = NO_OPTIONS) {
  if (!acceptable(!NODE_18, after, options, false)) return yield* nativeSetInterval(after, value, options);
  const signal = options.signal;
  if (signal !== undefined && signal.aborted) throw abortError(signal);
  let interval;
  let onAbort;
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
    if (options.ref === false) interval.unref();
    if (signal !== undefined) {
      onAbort = function onAbort() {
        timers.clearInterval(interval);
        if (wake !== null) {
          const resume = wake;
          wake = null;
          resume(PromiseReject(abortError(signal)));
        }
      };
      addAbortListener(signal, onAbort);
    }
    const waitForPeriod = function waitForPeriod(resolve) {
      wake = resolve;
    };
    while (signal === undefined || !signal.aborted) {
      if (unyielded === 0) await new Promise(waitForPeriod);
      for (; unyielded > 0; unyielded--) yield value;
    }
    throw abortError(signal);
  } finally {
    // aborted, or the consumer stopped (break, return(), a throw): the timer goes with it
    timers.clearInterval(interval);
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

// Node's scheduler is the one instance of a class that cannot be constructed, and so is ours.
// Called on anything but one of the two schedulers, a method is Node's business (it throws
// ERR_INVALID_THIS).
class Scheduler {
  constructor() {
    new NativeScheduler();   // throws Node's ERR_ILLEGAL_CONSTRUCTOR
  }

  yield() {
    if (this !== scheduler && this !== nativeScheduler) return NativeScheduler.prototype.yield.call(this);
    return setImmediate();
  }

  wait(delay, options) {
    if (this !== scheduler && this !== nativeScheduler) return NativeScheduler.prototype.wait.call(this, delay, options);
    // Node 18 passes on only the signal, so other options are neither checked nor used
    return setTimeout(delay, undefined, NODE_18 ? { signal: options?.signal } : options);
  }
}

const scheduler = Object.create(Scheduler.prototype);

module.exports = {
  setTimeout,
  setImmediate,
  setInterval,
  scheduler,
};
