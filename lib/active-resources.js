/*
 * active-resources: process.getActiveResourcesInfo() as Node would answer it without qtimers.
 *
 * Owns the wrapper that install() puts in place of process.getActiveResourcesInfo (a public
 * API that tools and test runners use to tell what keeps a process alive) and uninstall() takes
 * out again.  Node lists its active requests, then its active handles, then one 'Timeout' per
 * referenced pending native timeout and one 'Immediate' per referenced pending native
 * immediate, always in that order, the last two as blocks at the end.  qtimers runs its timers
 * from a few native driver handles, so the raw answer has one 'Timeout' / 'Immediate' for each
 * driver that is referenced: the wrapper takes those out of the blocks and puts in one entry per
 * referenced pending qtimers timeout or interval, and per referenced pending qtimers immediate
 * (a running immediate is no longer counted, a running timeout still is, as in Node).
 * It must never change the answer for anything that is not a timer of qtimers, and never
 * replace the function with other than exactly what it found when unpatched.
 */
'use strict';

const stats = require('./stats');

const proc = process;
let saved = null;           // the property descriptor found at patch(), while patched

/* the raw answer, corrected for qtimers' driver handles and its own pending timers */
function correct(raw) {
  const counts = stats.activeHandles();
  let end = raw.length;
  let immediates = 0;
  while (end > 0 && raw[end - 1] === 'Immediate') { end -= 1; immediates += 1; }
  let timeouts = 0;
  while (end > 0 && raw[end - 1] === 'Timeout') { end -= 1; timeouts += 1; }
  timeouts += counts.refedTimeouts - counts.nativeTimeouts;
  immediates += counts.refedImmediates - counts.nativeImmediates;
  if (end < raw.length) raw.length = end;
  for (let i = 0; i < timeouts; i++) raw.push('Timeout');
  for (let i = 0; i < immediates; i++) raw.push('Immediate');
  return raw;
}

function patch() {
  if (saved !== null) return;
  const descriptor = Object.getOwnPropertyDescriptor(proc, 'getActiveResourcesInfo');
  if (descriptor === undefined || typeof descriptor.value !== 'function') return;
  saved = descriptor;
  const original = descriptor.value;
  // a method named and shaped as Node's: name 'getActiveResourcesInfo', length 0
  const wrapper = {
    getActiveResourcesInfo() {
      return correct(Reflect.apply(original, this, []));
    },
  }.getActiveResourcesInfo;
  Object.defineProperty(proc, 'getActiveResourcesInfo', {
    value: wrapper,
    writable: descriptor.writable,
    enumerable: descriptor.enumerable,
    configurable: true,
  });
}

function unpatch() {
  if (saved === null) return;
  Object.defineProperty(proc, 'getActiveResourcesInfo', saved);
  saved = null;
}

module.exports = { patch, unpatch };
