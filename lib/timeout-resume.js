/*
 * timeout-resume: the rest of a timeouts drain after a callback threw out of it.
 *
 * Owns whether a resume is queued, the clock reading the thrown-out drain decided what was due
 * by, and the nextTick that resumes it (or, if another drain ran since, leaves the rest to the
 * driver).  timeout-drain.js hands it its drain and its driver request (resumeWith), so that this
 * module imports nothing of timeout-drain.js.
 * It must never call user code itself (only timeout-drain.js's drain does), never queue more than
 * one resume, and never resume by a reading other than the thrown-out drain's.
 */
'use strict';

// qtimers' own code from here to the end() at the bottom (own-frames.js)
const ownFrom = require('./own-frames').begin();

const natives = require('./natives');
const section = require('./section');
const context = require('./context');

// Captured at load: the globals may be replaced (by us) or removed (by tests) later.
const nextTick = natives.nextTick;
const contextState = context.state;
const NONE = context.NONE;

let drain = null;                 // timeout-drain.js's drainTimeouts(now, started)
let wantFirst = null;             // timeout-drain.js's: want the driver for the first expiry
let resumeQueued = false;         // a nextTick is queued to resume a drain a callback threw out of
let resumeNow = 0;                // the reading that drain decided what was due by
let resumeSerial = 0;             // section.drainSerial() when it was queued

/* timeout-drain.js's drain and its request for the driver (once, at its load) */
function resumeWith(drainTimeouts, wantFirstExpiry) {
  drain = drainTimeouts;
  wantFirst = wantFirstExpiry;
}

function resumeTimeouts() {
  resumeQueued = false;
  // Usually right after the throw.  If another qtimers drain ran since (a callback of a
  // resumed drain threw out of Node's tick queue, whose ticks then wait for the next callback
  // to return to Node), the driver takes the rest at the next timers phase: late, never early.
  if (section.drainSerial() !== resumeSerial) {
    wantFirst();
    return;
  }
  drain(resumeNow, -1);
}

/*
 * a callback threw out of the drain by the reading `now`.  Node reports it, then at once runs
 * the rest of what was due by the same reading, before any nextTick and before immediates:
 * Node's retry runs the driver again (rearmFired, then retry()), or runs the nextTick queue
 * first, where this one, queued ahead of the handler's, resumes the drain (outside the
 * driver's callback, only the nextTick).
 */
function queueResume(now) {
  if (resumeQueued) return;
  resumeQueued = true;
  resumeNow = now;
  resumeSerial = section.drainSerial();
  // queued from the top level: not in the domain the throw left active for Node's handler
  if (contextState.mode !== NONE) context.callAtRoot(nextTick, resumeTimeouts);
  else nextTick(resumeTimeouts);
}

/*
 * Node's retry right after a throw: by the reading of the drain thrown out of (the same
 * wakeup, not counted again); the nextTick queued for it finds nothing left to do
 */
function retry() {
  resumeQueued = false;
  drain(resumeNow, -1);
}

module.exports = { resumeWith, queueResume, retry };

require('./own-frames').end(ownFrom);
