/*
 * install: putting qtimers in place of Node's global timers, and taking it out again.
 *
 * Owns the global property swap and the module's public face: the object `require('qtimers')`
 * returns (install, uninstall, the timer functions, currentTimestamp).  install() saves each
 * global's exact property descriptor the first time and defines ours with the same attributes,
 * adding currentTimestamp as a non-enumerable global so leak checkers that diff the global
 * object's keys (mocha --check-leaks, Node's own test harness) do not flag it; uninstall()
 * puts the saved descriptors back, so the very same native functions return.  Both may be
 * called any number of times.  Handles outlive either call: a qtimers timer made before
 * uninstall() still fires and can still be cleared.
 * It must never change how timers behave, only which functions the globals name.
 */
'use strict';

const timers = require('./timers');

const GLOBAL_NAMES = ['setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'];

let saved = null;   // name -> the global's own property descriptor before install (or undefined)

function install() {
  if (saved === null) {
    saved = Object.create(null);
    for (const name of GLOBAL_NAMES) saved[name] = Object.getOwnPropertyDescriptor(globalThis, name);
    saved.currentTimestamp = Object.getOwnPropertyDescriptor(globalThis, 'currentTimestamp');
  }
  for (const name of GLOBAL_NAMES) {
    const was = saved[name];
    Object.defineProperty(globalThis, name, {
      value: timers[name],
      writable: was ? was.writable !== false : true,
      enumerable: was ? was.enumerable : true,
      configurable: true,
    });
  }
  Object.defineProperty(globalThis, 'currentTimestamp', {
    value: timers.currentTimestamp, writable: true, enumerable: false, configurable: true,
  });
  return qtimers;
}

function uninstall() {
  if (saved === null) return qtimers;
  for (const name of GLOBAL_NAMES.concat('currentTimestamp')) {
    const was = saved[name];
    if (was) Object.defineProperty(globalThis, name, was);
    else delete globalThis[name];
  }
  saved = null;
  return qtimers;
}

function isInstalled() {
  return saved !== null && globalThis.setTimeout === timers.setTimeout;
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
  Timeout: timers.Timeout,
  Immediate: timers.Immediate,
};

module.exports = qtimers;
