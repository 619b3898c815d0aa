/*
 * install: putting qtimers in place of Node's timers, and taking it out again.
 *
 * Owns the swap and the module's public face: the object `require('qtimers')` returns (install,
 * uninstall, isInstalled, the timer functions, currentTimestamp, and stats.js's and report.js's
 * stats, pending, trackOrigins and report).  install() replaces the six
 * global timer functions and, unless told `{ timersModule: false }`, the same six exports of
 * Node's `timers` module and setTimeout, setImmediate, setInterval, scheduler.wait and
 * scheduler.yield of `timers/promises` (with lib/promises.js's), and async_hooks'
 * executionAsyncResource (lib/execution-resource.js's: inside a timer's callback, that timer),
 * so libraries that call
 * require('timers').setTimeout or await require('timers/promises').setTimeout get qtimers too
 * (ESM named imports follow through module.syncBuiltinESMExports).  Node's internals keep their
 * own references and are not affected.  Every replaced property's exact descriptor is saved and
 * ours is defined with the same attributes, adding currentTimestamp as a non-enumerable global
 * so leak checkers that diff the global object's keys (mocha --check-leaks, Node's test harness)
 * do not flag it.  Both may be called any number of times.  Handles outlive either call: a
 * qtimers timer made before uninstall() still fires and can still be cleared.
 *
 * Only Node's own functions (lib/natives.js's) are replaced.  While fake timers (jest, vitest,
 * node:test, @sinonjs/fake-timers) or anything else hold any of the six globals, install()
 * replaces nothing at all and isInstalled() stays false: the test's fakes keep control, and
 * after they are removed the program runs on Node's timers (NODE_DEBUG=qtimers says why).
 * Where none of them is a fake (an APM agent, zone.js or another preload wrapped them before
 * qtimers loaded), that is a program that expected qtimers and runs without it: the first such
 * install() emits one warning, QTIMERS_NOT_INSTALLED, naming them and how to load qtimers first.
 * Loaded first, qtimers is simply what such a wrapper wraps and calls.
 * uninstall() puts back only the properties that still hold qtimers' function.  One a fake was
 * installed over is left to the fake: a sinon clock (jest, vitest) is told to restore Node's
 * function instead of ours; any other fake will put ours back, so that property stays recorded,
 * isInstalled() stays true and a later uninstall() finishes the job.  In a realm that is not
 * the one Node's modules belong to (a jest test file's sandbox) only that realm's globals are
 * replaced: the `timers` modules are shared by every test file of the worker.
 * It must never change how timers behave, only which functions those names refer to, and never
 * overwrite a function that is not Node's own or qtimers'.
 */
'use strict';

const builtins = require('./builtins');

const nodeTimers = builtins.timers;
const nodeTimersPromises = builtins.timersPromises;
const asyncHooks = builtins.asyncHooks;
const { syncBuiltinESMExports } = builtins.module;
const util = builtins.util;
const debug = util.debuglog('qtimers');
const natives = require('./natives');
const timers = require('./timers');
const { trackAsyncContext } = require('./context');
const promises = require('./promises');
const activeResources = require('./active-resources');
const stats = require('./stats');
const { report } = require('./report');
const { checkOptions, booleanOption } = require('./knobs');
const executionResource = require('./execution-resource');

const TIMER_NAMES = ['setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'];
const PROMISE_NAMES = ['setTimeout', 'setImmediate', 'setInterval'];
const SCHEDULER_NAMES = ['wait', 'yield'];
const INSTALL_OPTIONS = ['timersModule'];
// Node's scheduler class's prototype and its methods, as they were when qtimers loaded
const schedulerPrototype = nodeTimersPromises.scheduler ? Object.getPrototypeOf(nodeTimersPromises.scheduler) : null;
const nodeSchedulerMethods = schedulerPrototype === null ? {} : { wait: schedulerPrototype.wait, yield: schedulerPrototype.yield };
const realm = globalThis;

// one record per replaced property: { target, name, ours, was: descriptor before (or undefined) }
let saved = null;

function valueOf(target, name) {
  const desc = Object.getOwnPropertyDescriptor(target, name);
  return desc === undefined ? undefined : desc.value;
}

function replace(target, name, value, enumerable) {
  const was = Object.getOwnPropertyDescriptor(target, name);
  saved.push({ target, name, ours: value, was });
  Object.defineProperty(target, name, {
    value,
    writable: was ? was.writable !== false : true,
    enumerable: was ? was.enumerable : enumerable,
    configurable: true,
  });
}

/* replace target[name] if it holds Node's own function; say so and leave it if not */
function replaceNodes(target, name, value, nodes) {
  if (valueOf(target, name) === natives.nodeFunction(nodes)) replace(target, name, value, true);
  else debug('install() left %s alone: it is not Node\'s own function', name);
}

// Without Node's private process._tickCallback the drains cannot run a callback's ticks and
// promise jobs before the next callback: Node's own timers stay in place, as they keep Node's
// order, and the program is told once, when qtimers loads.
if (natives.tickCallback === null) {
  process.emitWarning('process._tickCallback is missing (a private Node API qtimers relies on), so ' +
    'qtimers leaves Node\'s timers in place; its own functions, if called, run one callback per ' +
    'event-loop turn', { code: 'QTIMERS_NO_TICK_CALLBACK' });
}

let warned = false;

/* the one warning for timers something other than a test's fakes replaced before qtimers loaded */
function warnNotInstalled(foreign) {
  if (warned) return;
  warned = true;
  const names = foreign.length > 1 ? `${foreign.slice(0, -1).join(', ')} and ${foreign[foreign.length - 1]} are` : `${foreign[0]} is`;
  process.emitWarning(`qtimers installed nothing: ${names} not Node's own ` +
    '(an APM agent, zone.js or another preload replaced them before qtimers loaded), so the program runs ' +
    'without qtimers.  Load qtimers first: `node -r qtimers -r <agent> app.js`, or require(\'qtimers\') before the agent.',
  { code: 'QTIMERS_NOT_INSTALLED' });
}

/* the sinon clocks whose functions are in place of a global or a `timers` export */
function sinonClocks() {
  const clocks = new Set();
  for (const name of TIMER_NAMES) {
    for (const fn of [valueOf(realm, name), valueOf(nodeTimers, name)]) {
      const clock = fn !== undefined && fn !== null ? valueOf(fn, 'clock') : undefined;
      if (clock !== null && typeof clock === 'object') clocks.add(clock);
    }
  }
  return clocks;
}

/*
 * A sinon clock (jest's and vitest's fake timers) installed over ours restores, when it is
 * uninstalled, what it saved: make that Node's function instead of ours.  It keeps a replaced
 * global as `_<name>` and replaced module exports as { methodName, original } entries.
 */
function redirectSinonClock(record) {
  const { target, name, ours, was } = record;
  const nodes = was.value;
  if (typeof nodes !== 'function') return false;
  let redirected = false;
  for (const clock of sinonClocks()) {
    if (target === realm && clock['_' + name] === ours) {
      clock['_' + name] = nodes;
      redirected = true;
    }
    const list = target === nodeTimers ? clock.timersModuleMethods
      : target === nodeTimersPromises ? clock.timersPromisesModuleMethods : undefined;
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      if (entry && entry.methodName === name && entry.original === ours) {
        entry.original = nodes;
        redirected = true;
      }
    }
  }
  return redirected;
}

function uninstall() {
  if (saved === null) return qtimers;
  activeResources.unpatch();
  const pending = [];
  let moduleTouched = false;
  // in reverse, so a property replaced twice ends as it was first found
  for (let i = saved.length - 1; i >= 0; i--) {
    const record = saved[i];
    const { target, name, ours, was } = record;
    const current = valueOf(target, name);
    if (target !== realm) moduleTouched = true;
    if (current === ours) {
      if (was) Object.defineProperty(target, name, was);
      else delete target[name];
    } else if (was !== undefined && current !== was.value && !redirectSinonClock(record)) {
      debug('uninstall() left %s to what was installed over it', name);
      pending.unshift(record);
    }
  }
  saved = pending.length > 0 ? pending : null;
  if (moduleTouched) syncBuiltinESMExports();
  return qtimers;
}

function install(options) {
  checkOptions(options, INSTALL_OPTIONS, 'install()', install);
  const timersModule = booleanOption(options, 'timersModule', true, install);
  if (saved !== null) uninstall();   // a re-install re-applies (possibly different) options
  if (natives.tickCallback === null) {
    debug('install() replaced nothing: process._tickCallback is missing');
    return qtimers;
  }
  // read through the global (jest's sandbox defines lazy getters that turn into values)
  const foreign = TIMER_NAMES.filter((name) => realm[name] !== natives.nodeFunction(natives[name]));
  if (foreign.length > 0) {
    debug('install() replaced nothing: %s %s not Node\'s own (fake timers?)', foreign.join(', '), foreign.length > 1 ? 'are' : 'is');
    if (!foreign.some((name) => natives.isFake(realm[name]))) warnNotInstalled(foreign);
    return qtimers;
  }
  if (saved === null) saved = [];
  for (const name of TIMER_NAMES) replace(realm, name, timers[name], true);
  if (!Object.prototype.hasOwnProperty.call(realm, 'currentTimestamp')) {
    replace(realm, 'currentTimestamp', timers.currentTimestamp, false);
  }
  // process.getActiveResourcesInfo() lists qtimers' timers as Node lists its own
  if (!natives.foreignRealm) activeResources.patch();
  if (timersModule && !natives.foreignRealm) {
    for (const name of TIMER_NAMES) replaceNodes(nodeTimers, name, timers[name], natives[name]);
    for (const name of PROMISE_NAMES) replaceNodes(nodeTimersPromises, name, promises[name], natives.promises[name]);
    // inside a callback it answers the callback's own handle, as natively
    replaceNodes(asyncHooks, 'executionAsyncResource', executionResource.executionAsyncResource, executionResource.nodeExecutionAsyncResource);
    // the scheduler's methods: ours go on its class's prototype, where Node's are, non-enumerable
    // like theirs (the object keeps exactly its own keys), only where the prototype still holds
    // Node's own method; uninstall() puts Node's back
    if (schedulerPrototype !== null) {
      for (const name of SCHEDULER_NAMES) {
        if (valueOf(schedulerPrototype, name) === nodeSchedulerMethods[name]) replace(schedulerPrototype, name, promises.scheduler[name], false);
        else debug('install() left scheduler.%s alone: it is not Node\'s own function', name);
      }
    }
    syncBuiltinESMExports();
  }
  return qtimers;
}

/*
 * true while qtimers' functions are in place of Node's, or under something installed over them
 * that will put them back (not when that something put Node's back: jest's legacy timers do)
 */
function isInstalled() {
  if (saved === null) return false;
  for (const { target, name, was } of saved) {
    if (was !== undefined && valueOf(target, name) !== was.value) return true;
  }
  return false;
}

// util.promisify(setTimeout) and util.promisify(setImmediate) are qtimers' own timers/promises
// functions, as Node's are its own: an enumerable getter, the shape of Node's property.  Wired
// here, above both modules, so that timers.js needs nothing of promises.js (which is built on it).
Object.defineProperty(timers.setTimeout, util.promisify.custom, {
  enumerable: true,
  get() { return promises.setTimeout; },
});
Object.defineProperty(timers.setImmediate, util.promisify.custom, {
  enumerable: true,
  get() { return promises.setImmediate; },
});

const qtimers = {
  install,
  uninstall,
  isInstalled,
  setImmediate: timers.setImmediate,
  clearImmediate: timers.clearImmediate,
  setTimeout: timers.setTimeout,
  clearTimeout: timers.clearTimeout,
  setInterval: timers.setInterval,
  clearInterval: timers.clearInterval,
  currentTimestamp: timers.currentTimestamp,
  coarse: timers.coarse,
  trackAsyncContext,
  stats: stats.timerStats,
  pending: stats.pending,
  trackOrigins: stats.trackOrigins,
  report,
  Timeout: timers.Timeout,
  Immediate: timers.Immediate,
};

module.exports = qtimers;
