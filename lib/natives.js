/*
 * natives: the real Node functions qtimers is built on, captured once, when qtimers loads.
 *
 * Owns finding them: the native timer functions (for qtimers' own driver timers, and to hand
 * Node's own errors and native handles back to Node), the monotonic clock, queueMicrotask, the
 * nextTick drain and the `timers/promises` functions.  Every other module takes them from here,
 * so there is one place that decides what "native" means.
 * It must never return a function that something else (qtimers itself, a fake-timers library)
 * put in the place of a native one, and never change any global or module.
 */
'use strict';

const nodeTimers = require('timers');
const nodeTimersPromises = require('timers/promises');
const proc = process;

module.exports = {
  setTimeout: nodeTimers.setTimeout,
  clearTimeout: nodeTimers.clearTimeout,
  setImmediate: nodeTimers.setImmediate,
  clearImmediate: nodeTimers.clearImmediate,
  setInterval: nodeTimers.setInterval,
  clearInterval: nodeTimers.clearInterval,
  hrtimeBigint: proc.hrtime.bigint,
  queueMicrotask: globalThis.queueMicrotask,
  // drains the nextTick and microtask queues, as Node does between two native timer callbacks
  tickCallback: typeof proc._tickCallback === 'function' ? proc._tickCallback : function noTicks() {},
  promises: {
    setTimeout: nodeTimersPromises.setTimeout,
    setImmediate: nodeTimersPromises.setImmediate,
    setInterval: nodeTimersPromises.setInterval,
    scheduler: nodeTimersPromises.scheduler,
  },
};
