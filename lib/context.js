/*
 * context: async context (AsyncLocalStorage stores, async_hooks, domains) for qtimers callbacks.
 *
 * Owns deciding what async context a scheduled callback must carry, capturing it, and running
 * the callback inside it.  Native timers are async resources: a callback sees the
 * AsyncLocalStorage stores, async_hooks ids and domain of the code that scheduled it.  qtimers
 * runs many callbacks from one native driver, so it carries that context itself, at the least
 * cost that is still exact for what the program can observe:
 *   - none: no store was ever entered and no hook enabled.  A timer pays one test.
 *   - stores: AsyncLocalStorage is in use, no async hook of the program's own.  A timer records
 *     getStore() of each AsyncLocalStorage seen so far, and its callback runs inside run() of
 *     those stores (skipped when they are already current).  Hooks see no per-timer resource,
 *     which is invisible without hooks.
 *   - resources: the program enabled an async hook (its own, or a domain's), or asked for it
 *     with trackAsyncContext().  A timer carries an AsyncResource named like Node's, exactly as
 *     observable as a native timer, at several times the cost.
 * The mode only ever goes up.  It is learnt by wrapping public methods: AsyncLocalStorage's run
 * and enterWith (which name the storages to record), async_hooks.createHook (which marks the
 * program's hooks) and AsyncHook's enable; the wrappers go once resources mode makes them moot.
 * Hooks or a domain already active when qtimers loads are detected where Node shows it (a
 * promise carries async ids when an init hook is on); a store entered before qtimers loads is
 * not, so load qtimers first (`node -r qtimers`) or call trackAsyncContext().
 * It must never allocate for a timer in mode none, and never hold a context longer than its
 * timer is pending.
 */
'use strict';

const asyncHooks = require('async_hooks');
const clock = require('./clock');
const { syncBuiltinESMExports } = require('module');
// Read before createHook is wrapped: on some Node versions this loads the module behind
// AsyncLocalStorage, which must keep the original createHook for its own internal hook.
const { AsyncResource, AsyncLocalStorage } = asyncHooks;

const proc = process;
const ReflectApply = Reflect.apply;
const EMPTY = Object.freeze([]);

const NONE = 0;
const STORES = 1;
const RESOURCES = 2;

const state = {
  mode: NONE,
};

// The snapshot this drain entered last, while it is still what the drain's callbacks see.
// Between two callbacks of a drain only enterWith can change the current stores: run(),
// exit() and every async scope (nextTicks, promise jobs) restore what they found when they
// end.  enterWith, in stores mode, goes through our wrapper, which clears this; so does the
// end of each drain (its native callback's context ends with it).  A batch of one request's
// callbacks then checks its stores once, not once a callback (getStore is not free).
let enteredSnapshot = null;

// ---------------------------------------------------------------- learning the mode

const storages = [];            // AsyncLocalStorage instances seen entering a store, in order
const seenStorages = new WeakSet();
const programHooks = new WeakSet();
const restorers = [];

function raiseMode(mode) {
  if (mode <= state.mode) return;
  state.mode = mode;
  enteredSnapshot = null;
  if (mode === RESOURCES) {
    // AsyncResources carry everything: the wrappers have nothing left to learn
    while (restorers.length > 0) restorers.pop()();
    syncBuiltinESMExports();
  }
}

/* carry full async context (AsyncResources) from now on */
function trackAsyncContext() {
  raiseMode(RESOURCES);
}

function wrap(target, name, makeWrapper) {
  const original = target[name];
  if (typeof original !== 'function') return;
  const descriptor = Object.getOwnPropertyDescriptor(target, name);
  target[name] = makeWrapper(original);
  restorers.push(function restore() {
    if (descriptor) Object.defineProperty(target, name, descriptor);
    else delete target[name];
  });
}

function noteStorage(storage) {
  if (seenStorages.has(storage)) return;
  seenStorages.add(storage);
  storages.push(storage);
  raiseMode(STORES);
}

if (AsyncLocalStorage) {
  for (const name of ['run', 'enterWith']) {
    wrap(AsyncLocalStorage.prototype, name, (original) => function storageEntered() {
      enteredSnapshot = null;
      noteStorage(this);
      return ReflectApply(original, this, arguments);
    });
  }
}

wrap(asyncHooks, 'createHook', (original) => function createHook() {
  const hook = ReflectApply(original, this, arguments);
  programHooks.add(hook);
  return hook;
});

// AsyncHook instances share one prototype; an inert hook reaches it.
wrap(Object.getPrototypeOf(asyncHooks.createHook({})), 'enable', (original) => function enable() {
  if (programHooks.has(this)) raiseMode(RESOURCES);
  return ReflectApply(original, this, arguments);
});
syncBuiltinESMExports();    // ESM importers of createHook get the wrapper too

// Already in use before we were loaded?  An enabled init hook stamps async ids on promises.
if (Object.getOwnPropertySymbols(Promise.resolve()).length > 0 || proc.domain) raiseMode(RESOURCES);

// ---------------------------------------------------------------- capturing and running

/* the stores a callback scheduled now must see, one value per storage known now */
class StoreSnapshot {
  constructor(count, value) {
    this.count = count;
    this.value = value;       // the store itself when count is 1, else an array of them
  }
}

// The snapshot made last, reused while the stores are the same: a request's code usually
// schedules several timers in one go, and a loop of setTimeouts in one store then makes one
// snapshot, not one per timer.  Snapshots of the same stores are interchangeable, so when to
// forget it is only a question of memory: a store must not be kept alive by the cache past
// the synchronous section that made it.  Inside qtimers' drains (clock.inBatch) the scheduler
// forgets it when the drain ends; anywhere else a microtask does, queued once per section (a
// microtask per callback would cost more than the snapshot it saves: with a store active,
// Node's queueMicrotask makes an async resource).
let lastSnapshot = null;
let forgetQueued = false;
const queueMicrotask_ = require('./natives').queueMicrotask;

function forgetSnapshotFromMicrotask() {
  forgetQueued = false;
  lastSnapshot = null;
}

/* forget the cached and the entered snapshot (the scheduler calls this when a drain ends) */
function forgetSnapshot() {
  lastSnapshot = null;
  enteredSnapshot = null;
}

function remember(snapshot) {
  lastSnapshot = snapshot;
  if (!forgetQueued && !clock.inBatch) {
    forgetQueued = true;
    queueMicrotask_(forgetSnapshotFromMicrotask);
  }
  return snapshot;
}

/* the context to carry for a callback scheduled now (state.mode is not NONE) */
function capture(type) {
  if (state.mode === RESOURCES) return new AsyncResource(type, { requireManualDestroy: true });
  const n = storages.length;
  const last = lastSnapshot;
  if (n === 1) {
    const value = storages[0].getStore();
    if (last !== null && last.count === 1 && last.value === value) return last;
    return remember(new StoreSnapshot(1, value));
  }
  const values = new Array(n);
  for (let i = 0; i < n; i++) values[i] = storages[i].getStore();
  if (last !== null && last.count === n && sameValues(last.value, values)) return last;
  return remember(new StoreSnapshot(n, values));
}

function sameValues(a, b) {
  for (let i = 0; i < b.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/*
 * make a captured context current for the callback about to run, if it is a StoreSnapshot
 * (true); an AsyncResource cannot be entered without a scope (false: use callIn)
 */
function enter(ctx) {
  if (!(ctx instanceof StoreSnapshot)) return false;
  if (ctx !== enteredSnapshot) {
    enterStores(ctx);
    // in resources mode the wrappers are gone, and nothing would clear it
    if (state.mode === STORES) enteredSnapshot = ctx;
  }
  return true;
}

/* call fn with `thisArg` and `args` (an array or undefined) inside an AsyncResource's scope */
function callIn(ctx, fn, thisArg, args) {
  // A domain must still be active when a throw reaches Node's handler, as with native timers;
  // runInAsyncScope leaves it on the way out, so hold our own reference to it across the call.
  const domain = ctx.domain;
  if (domain) domain.enter();
  const result = args === undefined
    ? ctx.runInAsyncScope(fn, thisArg)
    : ctx.runInAsyncScope(fn, thisArg, ...args);
  if (domain) domain.exit();
  return result;
}

// Stores are entered with enterWith(), not run(): the scheduler's drains run every callback
// from one native callback, whose context Node restores when it returns, so a store entered
// here lasts exactly until the next callback enters its own.  Consecutive callbacks with the
// same stores (the common case: one request's timers) enter nothing at all.
let storesEntered = false;

function enterStores(ctx) {
  if (ctx.count === 1 && storages.length === 1) {
    const storage = storages[0];
    const value = ctx.value;
    if (storage.getStore() !== value) {
      storage.enterWith(value);
      storesEntered = true;
    }
    return;
  }
  const values = ctx.count === 1 ? [ctx.value] : ctx.value;
  for (let i = 0; i < values.length; i++) {
    const storage = storages[i];
    if (storage.getStore() !== values[i]) {
      storage.enterWith(values[i]);
      storesEntered = true;
    }
  }
  // storages first used after this callback was scheduled: as Node, no store for them
  for (let i = values.length; i < storages.length; i++) {
    if (storages[i].getStore() !== undefined) {
      storages[i].enterWith(undefined);
      storesEntered = true;
    }
  }
}

/*
 * call fn for a callback that carries no context (scheduled before any store was entered):
 * once stores have been entered by a drain, it runs from the top-level context instead
 */
function callWithoutContext(fn, thisArg, args) {
  if (!storesEntered) return args === undefined ? ReflectApply(fn, thisArg, EMPTY) : ReflectApply(fn, thisArg, args);
  return rootScope.runInAsyncScope(ReflectApply, null, fn, thisArg, args === undefined ? EMPTY : args);
}

function release(ctx) {
  if (!(ctx instanceof StoreSnapshot)) ctx.emitDestroy();
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

module.exports = {
  state, trackAsyncContext, capture, enter, callIn, callWithoutContext, release, callAtRoot, forgetSnapshot,
};
