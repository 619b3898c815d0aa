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
};
