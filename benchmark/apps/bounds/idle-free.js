/*
 * bounds/idle-free: heartbeats with idle timeouts that cost nothing (preloaded: `node -r`).
 *
 * Every idle timeout of the heartbeats workload (the setTimeout of closeIdle) becomes one shared
 * object whose refresh() does nothing, and never fires; the ping timers stay whatever setTimeout
 * was when this loaded: Node's, or qtimers' when qtimers is preloaded before it (bounds.js runs
 * both).  No timers library can make the idle timeouts cheaper than this, so CPU per message
 * here, against native's, is the most any library could win on them.  The work is the
 * same but for the one connection in a thousand that never answers: it is never closed.
 * It must never be used for anything but that measurement.
 */
'use strict';

const nativeSetTimeout = global.setTimeout;
const nothing = require('./nothing');

global.setTimeout = function setTimeout(callback, delay, arg) {
  return callback.name === 'closeIdle' ? nothing : nativeSetTimeout(callback, delay, arg);
};
