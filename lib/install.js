/*
 * install: putting qtimers in place of Node's timers, and taking it out again.
 *
 * Owns the swap and the module's public face: the object `require('qtimers')` returns (install,
 * uninstall, the timer functions, currentTimestamp).  install() replaces the six global timer
 * functions and, unless told `{ timersModule: false }`, the same six exports of Node's `timers`
 * module and setTimeout, setImmediate, setInterval, scheduler.wait and scheduler.yield of
 * `timers/promises` (with lib/promises.js's), so libraries that call require('timers').setTimeout
 * or await require('timers/promises').setTimeout get qtimers too (ESM named imports follow
 * through module.syncBuiltinESMExports).  Node's internals keep their own references and
 * are not affected.  The first install() saves every replaced property's exact descriptor and
 * defines ours with the same attributes, adding currentTimestamp as a non-enumerable global so
 * leak checkers that diff the global object's keys (mocha --check-leaks, Node's test harness) do
 * not flag it; uninstall() puts the saved descriptors back, so the very same native functions
 * return.  Both may be called any number of times.  Handles outlive either call: a qtimers timer
 * made before uninstall() still fires and can still be cleared.
 * It must never change how timers behave, only which functions those names refer to.
 */
'use strict';

const nodeTimers = require('timers');
const nodeTimersPromises = require('timers/promises');
const { syncBuiltinESMExports } = require('module');
const timers = require('./timers');
const { trackAsyncContext } = require('./context');
const promises = require('./promises');

const TIMER_NAMES = ['setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'];
const PROMISE_NAMES = ['setTimeout', 'setImmediate', 'setInterval'];
const SCHEDULER_NAMES = ['wait', 'yield'];

// one record per replaced property: { target, name, descriptor before install (or undefined) }
let saved = null;

function replace(target, name, value, enumerable) {
  const was = Object.getOwnPropertyDescriptor(target, name);
  saved.push({ target, name, was });
  Object.defineProperty(target, name, {
    value,
    writable: was ? was.writable !== false : true,
    enumerable: was ? was.enumerable : enumerable,
    configurable: true,
  });
}

function install(options) {
  const timersModule = !(options && options.timersModule === false);
  if (saved !== null) uninstall();   // a re-install re-applies (possibly different) options
  saved = [];
  for (const name of TIMER_NAMES) replace(globalThis, name, timers[name], true);
  replace(globalThis, 'currentTimestamp', timers.currentTimestamp, false);
  if (timersModule) {
    for (const name of TIMER_NAMES) replace(nodeTimers, name, timers[name], true);
    for (const name of PROMISE_NAMES) replace(nodeTimersPromises, name, promises[name], true);
    // the scheduler's methods are on its prototype: ours go on the instance, non-enumerable
    // like theirs, and uninstall() deletes them again
    const nodeScheduler = nodeTimersPromises.scheduler;
    if (nodeScheduler) for (const name of SCHEDULER_NAMES) replace(nodeScheduler, name, promises.scheduler[name], false);
    syncBuiltinESMExports();
  }
  return qtimers;
}

function uninstall() {
  if (saved === null) return qtimers;
  // in reverse, so a property replaced twice ends as it was first found
  for (let i = saved.length - 1; i >= 0; i--) {
    const { target, name, was } = saved[i];
    if (was) Object.defineProperty(target, name, was);
    else delete target[name];
  }
  saved = null;
  syncBuiltinESMExports();
  return qtimers;
}

function isInstalled() {
  return saved !== null;
}

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
  trackAsyncContext,
  Timeout: timers.Timeout,
  Immediate: timers.Immediate,
};

module.exports = qtimers;
