/*
 * cleared-periods: the period (_repeat) of each interval cleared before it was done.
 *
 * Owns that one table.  Node's clear*() sets a cleared interval's _idleTimeout to -1 and leaves
 * its _repeat as it was: ours keeps the delay -1 in _idleTimeout too, so the period lives here,
 * read and written through the handle's _repeat (handles.js), filled by cancelTimeout
 * (timeouts.js).  Only cleared intervals are in it; a WeakMap, so it never keeps one alive.
 * It must never import anything or hold anything but the periods.
 */
'use strict';

const periods = new WeakMap();

/* a cleared interval's period (its _repeat) */
function clearedPeriod(timer) {
  return periods.get(timer);
}

/* a cleared interval's period: the one it had, or a _repeat set by the program since */
function setClearedPeriod(timer, period) {
  periods.set(timer, period);
}

module.exports = { clearedPeriod, setClearedPeriod };
