/*
 * context-watch: the doors through which a program makes async context observable, watched
 * for context.js: AsyncHook's enable() (every hook, every domain, and the first
 * AsyncLocalStorage store before frames), and AsyncLocalStorage's run() and enterWith() (the
 * only doors to a frame that holds a store).
 *
 * Owns whether Node's AsyncLocalStorage class was loaded before qtimers (read at this module's
 * load, before anything reads the class, which loads it), telling Node's own storage hook from
 * the program's hooks by who enables it, and wrapping those methods and putting them back.
 * context.js decides the mode from what the wrappers tell it; this module imports nothing of it.
 * It must never decide or hold a mode, never enable a hook or enter a store of its own (enabling
 * any hook switches on V8's promise hooks for good, docs/decisions.md, "Node's storage hook is
 * recognised by who enables it"), and never change what a wrapped method does or returns.
 */
'use strict';

// qtimers' own code from here to the end() at the bottom (own-frames.js)
const ownFrom = require('./own-frames').begin();

const proc = process;

/*
 * whether Node's AsyncLocalStorage class may have been used before qtimers loaded: it has been
 * loaded (its own module, from Node 22 on), or that cannot be told.  Read before anything here
 * reads the class, which loads it.
 */
function storageLoadedBefore() {
  const loaded = proc.moduleLoadList;
  if (!Array.isArray(loaded)) return true;
  for (const name of loaded) if (name.startsWith('NativeModule internal/async_local_storage')) return true;
  return false;
}
const storageUsedBefore = storageLoadedBefore();

const asyncHooks = require('./builtins').asyncHooks;

const ReflectApply = Reflect.apply;

const restorers = [];
const storeRestorers = [];     // run() and enterWith(), needed until a store is carried

function wrap(target, name, makeWrapper, list) {
  const original = target[name];
  if (typeof original !== 'function') return;
  const descriptor = Object.getOwnPropertyDescriptor(target, name);
  target[name] = makeWrapper(original);
  (list || restorers).push(function restore() {
    if (descriptor) Object.defineProperty(target, name, descriptor);
    else delete target[name];
  });
}

/* put back the wrappers needed only until a store is carried (run()) */
function stopWatchingStores() {
  while (storeRestorers.length > 0) storeRestorers.pop()();
}

/* put back every wrapper: nothing left to learn */
function stopWatching() {
  while (restorers.length > 0) restorers.pop()();
}

// Node's own storage hook, once seen.  It is told apart from the program's hooks by who enables
// it: AsyncLocalStorage, from one of Node's own modules.
let storageHook = null;

function returnCallSites(err, callSites) {
  return callSites;
}

/* whether the enable() being called comes from Node's AsyncLocalStorage (one stack capture) */
function enabledByStorage(enable) {
  const savedPrepare = Error.prepareStackTrace;
  const savedLimit = Error.stackTraceLimit;
  let fromStorage = false;
  try {
    Error.prepareStackTrace = returnCallSites;
    Error.stackTraceLimit = 1;
    const holder = {};
    Error.captureStackTrace(holder, enable);
    const callSites = holder.stack;
    if (Array.isArray(callSites) && callSites.length > 0) {
      const file = callSites[0].getFileName();
      fromStorage = typeof file === 'string' && file.startsWith('node:') &&
        callSites[0].getTypeName() === 'AsyncLocalStorage';
    }
  } catch (err) {
    fromStorage = false;      // unknown: counted as the program's, which carries the most context
  }
  // each put back on its own: a program may have made either read-only
  try { Error.stackTraceLimit = savedLimit; } catch (err) { /* as the program left it */ }
  try { Error.prepareStackTrace = savedPrepare; } catch (err) { /* as the program left it */ }
  return fromStorage;
}

/*
 * watch AsyncHook's enable(): storageEnabled() before Node's own storage hook is enabled,
 * programHook() before any other hook is
 */
function watchEnable(storageEnabled, programHook) {
  // AsyncHook instances share one prototype; an inert hook reaches it.
  wrap(Object.getPrototypeOf(asyncHooks.createHook({})), 'enable', (original) => function enable() {
    if (this === storageHook || (storageHook === null && enabledByStorage(enable))) {
      storageHook = this;
      storageEnabled();         // the program's first store
    } else {
      programHook();
    }
    return ReflectApply(original, this, arguments);
  });
}

/*
 * watch AsyncLocalStorage's run() (until stopWatchingStores()) and enterWith(): storeRun() or
 * storeEntered() before the store is entered
 */
function watchStores(AsyncLocalStorage, storeRun, storeEntered) {
  wrap(AsyncLocalStorage.prototype, 'run', (original) => function run() {
    storeRun();
    return ReflectApply(original, this, arguments);
  }, storeRestorers);
  wrap(AsyncLocalStorage.prototype, 'enterWith', (original) => function enterWith() {
    storeEntered();
    return ReflectApply(original, this, arguments);
  });
}

module.exports = { storageUsedBefore, watchEnable, watchStores, stopWatchingStores, stopWatching };

require('./own-frames').end(ownFrom);
