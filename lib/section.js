/*
 * section: the end of a synchronous section of the program, signalled once for all who need it.
 *
 * Owns the one end-of-section signal.  Some state only has to be right by the time control
 * returns to the event loop: whether each native driver is referenced (a count crossed zero),
 * when the timeout driver fires (a timer earlier than the armed one was added), whether the
 * clock's shared reading (exactStart = false) is still current.  Keeping it right on every call
 * would cost a call into C++ per call (a set/clear loop crosses zero on every iteration, as a
 * recursive setImmediate does on every callback; inserting timers in descending order of delay
 * finds a new earliest one every time).  So whoever keeps such state registers a handler with
 * atEnd() at load and calls needsEnd() when its state goes stale; every handler then runs once,
 * in registration order, when the section ends: at a microtask, which runs before the event
 * loop can next look at its timers or decide whether the process stays alive, or, for the
 * callbacks of a qtimers drain, when the drain ends (the drain itself returns to the loop).
 * One section queues at most one microtask, however many modules asked.  Also owns a count of
 * the drains started (drainSerial()), by which a nextTick queued in one section can tell
 * whether a drain has begun since.
 * It must never call user code, never queue a second microtask while one is pending, and never
 * require another qtimers module but natives.js (every other module may require it).
 */
'use strict';

const queueMicrotask_ = require('./natives').queueMicrotask;

const handlers = [];        // registered at load, run at each end
let endWanted = false;      // needsEnd() was called since the last end
let microtaskQueued = false;
let inDrain = false;        // inside a qtimers drain: the drain ends the section
// drains started so far, wrapping as an int32 (a small integer to V8 however long it runs)
let drainsStarted = 0;

/* run `handler` at the end of every section in which needsEnd() was called (at load only) */
function atEnd(handler) {
  handlers.push(handler);
}

/* some state must be settled before control returns to the event loop */
function needsEnd() {
  endWanted = true;
  if (inDrain || microtaskQueued) return;
  microtaskQueued = true;
  queueMicrotask_(endFromMicrotask);
}

function endFromMicrotask() {
  microtaskQueued = false;
  if (endWanted) end();
}

function end() {
  endWanted = false;
  for (let i = 0; i < handlers.length; i++) handlers[i]();
}

/*
 * a qtimers drain starts running callbacks: until drainEnded() no microtask is queued.  A
 * section still open ends here (its microtask is pending only when the drain runs from a
 * nextTick, ahead of it): what it settled must not count for the drain's callbacks.
 */
function drainStarted() {
  inDrain = true;
  drainsStarted = (drainsStarted + 1) | 0;
  if (endWanted) end();
}

/* the drain is over: it ends the section of its last callbacks */
function drainEnded() {
  inDrain = false;
  if (endWanted) end();
}

/* a number that changes whenever a qtimers drain starts */
function drainSerial() {
  return drainsStarted;
}

module.exports = { atEnd, needsEnd, drainStarted, drainEnded, drainSerial };
