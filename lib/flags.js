/*
 * flags: the bits of a handle's `_flags` field, one small integer per handle.
 *
 * Owns their meaning only.  A handle's whole state is these bits, so that a pending timeout is
 * six fields and a pending immediate two.
 * It must never hold state or logic: every module that reads or writes a handle imports these.
 */
'use strict';

module.exports = {
  REFED: 1,         // keeps the process alive while pending
  DESTROYED: 2,     // ran (and will not repeat) or was cleared: Node's `_destroyed`
  CLEARED: 4,       // cleared by the user: refresh() no longer revives it
  REPEAT: 8,        // an interval
  EXTRA: 16,        // carries arguments and/or an async context (the WithExtras subclasses)
  CONTEXT: 32,      // carries a captured async context
  PRIMITIVE: 64,    // has been given a numeric id by Symbol.toPrimitive
  // coarse timeouts (coarse.js)
  COARSE: 128,      // coarse: waits in coarse.js's slots (or is handed over to run) when pending
  FORCED: 256,      // made coarse by qtimers.coarse(timer), whatever its delay and the knob
  NOTED: 512,       // armed or refreshed since the last settle: the bits above are its note's place
  SLOTTED: 1024,    // in one of coarse.js's slots
  FLAG_BITS: 11,    // the bits above these are coarse.js's number (a place or a sequence)
};
