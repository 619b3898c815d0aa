/*
 * context: async context (AsyncLocalStorage stores, async_hooks, domains) for qtimers callbacks.
 *
 * Owns deciding whether a scheduled callback must carry its creator's async context, capturing
 * it, and running a callback inside it.  Native timers are async resources: a callback sees the
 * AsyncLocalStorage store and async_hooks ids of the code that scheduled it.  qtimers runs many
 * callbacks from one native driver, so it must carry that context itself, and the only public
 * way to do so is an AsyncResource per callback, which costs more than the whole rest of a
 * setImmediate.  So it is done only once something can observe it: context tracking switches on
 * (for good) the first time an async hook is enabled (user hooks, the hook behind
 * AsyncLocalStorage on Node < 24, domains) or an AsyncLocalStorage store is entered (the
 * AsyncContextFrame implementation of Node >= 24 uses no hooks).  Both are seen by wrapping
 * those public methods, and the wrappers are removed once they have fired.  Until then a timer
 * pays one boolean test.  Hooks or stores already active before qtimers was loaded are detected
 * at load where Node shows it (a promise carries async ids when an init hook is on, a domain is
 * active); otherwise call trackAsyncContext(), or load qtimers first (`node -r qtimers`).
 * It must never create an AsyncResource while tracking is off, and never hold a context longer
 * than its timer is pending.
 */
'use strict';

const asyncHooks = require('async_hooks');
const { AsyncResource, AsyncLocalStorage } = asyncHooks;

const proc = process;

const state = {
  tracking: false,
};

const restorers = [];

function trackAsyncContext() {
  if (state.tracking) return;
  state.tracking = true;
  // the wrappers have done their job: put the originals back so nobody pays for them
  while (restorers.length > 0) restorers.pop()();
}

function wrapToTrack(proto, name) {
  const original = proto[name];
  if (typeof original !== 'function') return;
  const own = Object.prototype.hasOwnProperty.call(proto, name);
  proto[name] = function trackingWrapper() {
    trackAsyncContext();
    return original.apply(this, arguments);
  };
  restorers.push(function restore() {
    if (own) proto[name] = original;
    else delete proto[name];
  });
}

// AsyncHook instances share one prototype; createHook({}) makes an inert one to reach it.
wrapToTrack(Object.getPrototypeOf(asyncHooks.createHook({})), 'enable');
if (AsyncLocalStorage) {
  wrapToTrack(AsyncLocalStorage.prototype, 'run');
  wrapToTrack(AsyncLocalStorage.prototype, 'enterWith');
}

// Already in use before we were loaded?  An enabled init hook stamps async ids on promises.
if (Object.getOwnPropertySymbols(Promise.resolve()).length > 0 || proc.domain) trackAsyncContext();

/* the context to carry for a callback scheduled now: an AsyncResource named like Node's */
function capture(type) {
  return new AsyncResource(type, { requireManualDestroy: true });
}

/* call fn with `thisArg` and `args` (an array or undefined) inside the captured context */
function callIn(resource, fn, thisArg, args) {
  // A domain must still be active when a throw reaches Node's handler, as with native timers;
  // runInAsyncScope leaves it on the way out, so hold our own reference to it across the call.
  const domain = resource.domain;
  if (domain) domain.enter();
  const result = args === undefined
    ? resource.runInAsyncScope(fn, thisArg)
    : resource.runInAsyncScope(fn, thisArg, ...args);
  if (domain) domain.exit();
  return result;
}

function release(resource) {
  resource.emitDestroy();
}

// The scope qtimers' own native drivers are created in.  A driver is created by whatever code
// happens to schedule first; were it created in that code's context, every callback without a
// context of its own (made before tracking began) would run in it, and Node would even route a
// throw to that code's domain.  Made at load, so it carries no store and no domain.
const rootScope = new AsyncResource('qtimers');

/* fn(arg) called as if from the top level: no store, no async parent, no active domain */
function callAtRoot(fn, arg) {
  const domain = proc.domain;
  if (domain) proc.domain = null;   // a domain's init hook adopts whatever process.domain is
  try {
    return rootScope.runInAsyncScope(fn, null, arg);
  } finally {
    if (domain) proc.domain = domain;
  }
}

module.exports = { state, trackAsyncContext, capture, callIn, release, callAtRoot };
