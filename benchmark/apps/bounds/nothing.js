/*
 * bounds/nothing: the handle of a timer that costs nothing, shared by every stand-in timer of
 * idle-free.js and ttl-free.js: its methods answer as a handle's do and do nothing; nothing
 * ever fires.  It must never be used for anything but the bounds' measurements.
 */
'use strict';

module.exports = Object.freeze({
  refresh() { return this; },
  unref() { return this; },
  ref() { return this; },
  hasRef() { return false; },
});
