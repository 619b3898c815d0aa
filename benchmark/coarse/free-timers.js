/*
 * coarse/free-timers: timeouts that cost nothing but their handle (preloaded: `node -r`), the
 * `bound` build of `npm run bench:coarse`'s refresh and set+clear rows.
 *
 * Every setTimeout of 1000 ms or more returns a new object with the fields of a Node Timeout
 * (shared/timeout-shaped.js: as large as a handle a drop-in library must return) and
 * never fires; its refresh() writes one field and clearTimeout marks it.  No timers library
 * can do less per call and still hand back a handle per setTimeout, so calls per CPU-second
 * here, against native's, bound what any could win on those rows.  Shorter timers (the
 * benchmark's drivers) stay Node's.
 * It must never be used for anything but that measurement: nothing it arms ever fires.
 */
'use strict';

const { TimeoutShaped } = require('../shared/timeout-shaped');

const nativeSetTimeout = global.setTimeout;
const nativeClearTimeout = global.clearTimeout;

// refresh() writes one field, as the least a refresh() of a handle of its own can do
class FreeTimeout extends TimeoutShaped {
  refresh() {
    this._idleStart = 1;
    return this;
  }
}

global.setTimeout = function setTimeout(callback, delay, ...args) {
  return delay >= 1000 ? new FreeTimeout(callback, delay) : nativeSetTimeout(callback, delay, ...args);
};

global.clearTimeout = function clearTimeout(timer) {
  if (timer instanceof FreeTimeout) timer._destroyed = true;
  else nativeClearTimeout(timer);
};
