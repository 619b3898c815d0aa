/*
 * stats: what qtimers holds and has done, in counts, lists and (optionally) origins.
 *
 * Owns putting the immediates' and the timeouts' state side by side.  For programs (the public
 * API, through install.js): timerStats() (stats(): pending, referenced, run, thrown and drains
 * per kind, the pending delays, and the lateness of fired timeouts and intervals from
 * lateness.js's histogram, which timeout-drain.js fills), pending() (the pending handles, sorted by
 * due time) and trackOrigins() (where each new handle was made: a stack captured into a side
 * WeakMap, formatted only when pending() reads it).  Pending counts are found by walking the queue and the lists,
 * so that adding and clearing a timer count nothing: a call costs O(pending).  For qtimers
 * itself: holdings() for tests (queue entries, referenced handles, timeout lists, drivers) and
 * activeHandles() for active-resources.js, which corrects process.getActiveResourcesInfo().
 * It must never change anything it reports on (a reset only zeroes the counts), never call user
 * code but Error.prepareStackTrace while formatting an origin, and never let an error of its own
 * escape: a bad argument gets Node's ERR_INVALID_ARG_TYPE (an unknown option name
 * ERR_INVALID_ARG_VALUE), through knobs.js.
 */
'use strict';

const ownFrames = require('./own-frames');
const immediates = require('./immediates');
const immediateListing = require('./immediate-listing');
const immediateCounts = require('./immediate-counts');
const timeouts = require('./timeouts');
const timeoutDrain = require('./timeout-drain');
const timeoutListing = require('./timeout-listing');
const timeoutCounts = require('./timeout-counts');
const { bucketHigh } = require('./lateness');
const clock = require('./clock');
const { argumentError, checkOptions, booleanOption } = require('./knobs');
const { REFED, REPEAT, COARSE } = require('./flags');

const LARGEST_LISTS = 5;          // how many of the longest timeout lists stats() names

// ---------------------------------------------------------------- for qtimers itself

function holdings() {
  const i = immediateListing.snapshot();
  const t = timeoutListing.snapshot();
  return {
    immediates: i.queued,
    refedImmediates: i.refed,
    refedTimeouts: t.refed,
    timeoutLists: t.lists,
    immediateDriver: i.driverQueued,
    timeoutArmed: t.armed,
  };
}

/*
 * the native handles qtimers itself holds that keep the process alive right now (what Node's
 * process.getActiveResourcesInfo() counts of ours), and the referenced handles of qtimers' own
 * that are pending, counted as Node would count them
 */
function activeHandles() {
  const i = immediateListing.snapshot();
  const t = timeoutListing.snapshot();
  return {
    // Node counts a native Immediate while it is referenced (not while it runs): our own record
    // of the drivers' ref state, since a driver's hasRef() answers false to open-handle tools
    nativeTimeouts: t.driverActive ? 1 : 0,
    nativeImmediates: i.driversRefed,
    refedTimeouts: t.refed,
    refedImmediates: i.refed - i.refedRunning,
  };
}

const STATS_OPTIONS = ['reset'];
const PENDING_OPTIONS = ['refedOnly'];

// ---------------------------------------------------------------- stats()

/* the lateness that at least `fraction` of the samples do not exceed: its bucket's top, at most max */
function percentile(buckets, count, fraction, max) {
  const rank = Math.ceil(fraction * count);
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    seen += buckets[i];
    if (seen >= rank) return Math.min(bucketHigh(i), max);
  }
  return max;
}

/* the lateness histogram's summary: count, mean, p50, p99 and max, in ms */
function latenessSummary(counted) {
  const buckets = counted.lateness;
  let count = 0;
  for (let i = 0; i < buckets.length; i++) count += buckets[i];
  if (count === 0) return { count: 0, mean: 0, p50: 0, p99: 0, max: 0 };
  return {
    count,
    mean: counted.latenessSum / count,
    p50: percentile(buckets, count, 0.5, counted.latenessMax),
    p99: percentile(buckets, count, 0.99, counted.latenessMax),
    max: counted.latenessMax,
  };
}

/*
 * stats(options): what is pending, what has run, how late timeouts ran (from the first call on,
 * by each callback's own start; before it, by its drain's).  options.reset: zero the counts
 * (run, thrown, drains, lateness) once they are read, so the next call covers what happened
 * since.
 */
function timerStats(options) {
  checkOptions(options, STATS_OPTIONS, 'stats()', timerStats);
  const reset = booleanOption(options, 'reset', false, timerStats);
  timeoutDrain.measureStarts();     // lateness by each callback's own start from now on
  const imm = { pending: 0, refed: 0, ran: 0, threw: 0, drains: 0 };
  immediateListing.forEachPending(function countImmediate(handle) {
    imm.pending += 1;
    if (handle._flags & REFED) imm.refed += 1;
  });
  const tmo = { pending: 0, intervals: 0, refed: 0, ran: 0, threw: 0, drains: 0, delays: 0, largestLists: [] };
  const perDelay = new Map();
  const crs = { pending: 0, refed: 0, ran: 0 };
  timeoutListing.forEachPending(function countTimeout(timer, delay) {
    tmo.pending += 1;
    if (timer._flags & COARSE) {
      crs.pending += 1;
      if (timer._flags & REFED) crs.refed += 1;
    }
    if (timer._flags & REPEAT) tmo.intervals += 1;
    if (timer._flags & REFED) tmo.refed += 1;
    perDelay.set(delay, (perDelay.get(delay) || 0) + 1);
  });
  tmo.delays = perDelay.size;
  tmo.largestLists = Array.from(perDelay, ([delay, pending]) => ({ delay, pending }))
    .sort((a, b) => b.pending - a.pending || a.delay - b.delay)
    .slice(0, LARGEST_LISTS);
  const immCounts = immediateCounts.counts();
  const tmoCounts = timeoutCounts.counts();
  const crsCounts = timeoutCounts.coarseCounts();
  imm.ran = immCounts.ran;
  imm.threw = immCounts.threw;
  imm.drains = immCounts.drains;
  tmo.ran = tmoCounts.ran + crsCounts.ran;
  crs.ran = crsCounts.ran;
  tmo.threw = tmoCounts.threw;
  tmo.drains = tmoCounts.drains;
  if (reset) {
    immediateCounts.resetCounts();
    timeoutCounts.resetCounts();
    timeoutCounts.resetCoarseCounts();
  }
  // coarse timeouts apart (coarse.js): their lateness is beyond their own due time, and the
  // `lateness` of the others leaves them out
  crs.lateness = latenessSummary(crsCounts);
  return { immediates: imm, timeouts: tmo, lateness: latenessSummary(tmoCounts), coarse: crs };
}

// ---------------------------------------------------------------- origins

// handle -> the object its creation stack was captured into, until pending() first reads it;
// from then on the array of its formatted frames
const origins = new WeakMap();

function recordOrigin(handle) {
  if (origins.has(handle)) return;          // a refresh() revives a timer: it keeps its origin
  const holder = {};
  // the frames from the qtimers function that made the handle on; V8 formats them only when read
  Error.captureStackTrace(holder, recordOrigin);
  origins.set(handle, holder);
}

/* trackOrigins(enabled): record where each handle made from now on was made (off by default) */
function trackOrigins(enabled) {
  if (typeof enabled !== 'boolean') throw argumentError('enabled', 'boolean', enabled, trackOrigins);
  const hook = enabled ? recordOrigin : null;
  timeouts.onTimeoutAdded(hook);
  immediates.onImmediateAdded(hook);
}

/* the frames of a handle's creation stack outside qtimers' own code, or null if not recorded */
function framesOf(handle) {
  const recorded = origins.get(handle);
  if (recorded === undefined) return null;
  if (Array.isArray(recorded)) return recorded;
  let text = '';
  try {
    text = String(recorded.stack);            // a program's Error.prepareStackTrace may run here
  } catch (err) {
    text = '';
  }
  const frames = text.split('\n')
    .filter((line) => /^\s+at /.test(line) && !ownFrames.isOwn(line))
    .map((line) => line.trim().slice(3));
  origins.set(handle, frames);                // the formatted frames are all that is kept
  return frames;
}

// ---------------------------------------------------------------- pending()

/* a callback's own name, read without running a getter; '(anonymous)' if it has none */
function callbackName(fn) {
  if (typeof fn !== 'function') return '(none)';
  const desc = Object.getOwnPropertyDescriptor(fn, 'name');
  return desc !== undefined && typeof desc.value === 'string' && desc.value !== '' ? desc.value : '(anonymous)';
}

function entry(kind, delay, msUntilDue, handle, fn) {
  const frames = framesOf(handle);
  return {
    kind,
    delay,
    msUntilDue,
    ref: (handle._flags & REFED) !== 0,
    callback: callbackName(fn),
    origin: frames === null ? null : frames.length > 0 ? frames[0] : '(unknown)',
    stack: frames === null ? null : frames.join('\n'),
  };
}

/*
 * pending(options): the pending handles, immediates first (in the order they run), then timeouts
 * and intervals by due time (ties: the earlier started first).  options.refedOnly: only those
 * that keep the process alive.
 */
function pending(options) {
  checkOptions(options, PENDING_OPTIONS, 'pending()', pending);
  const refedOnly = booleanOption(options, 'refedOnly', false, pending);
  // the handles first, the entries after: formatting an origin may run a program's code
  const imms = [];
  immediateListing.forEachPending(function listImmediate(imm) {
    if (!refedOnly || (imm._flags & REFED)) imms.push(imm);
  });
  const timers = [];
  timeoutListing.forEachPending(function listTimeout(timer, delay) {
    if (!refedOnly || (timer._flags & REFED)) timers.push({ timer, delay, due: timer._idleStart + delay });
  });
  timers.sort((a, b) => a.due - b.due || a.timer._idleStart - b.timer._idleStart);
  const now = clock.now();
  const list = imms.map((imm) => entry('immediate', 0, 0, imm, imm._onImmediate));
  for (const { timer, delay, due } of timers) {
    list.push(entry(timer._flags & REPEAT ? 'interval' : 'timeout', delay, due - now, timer, timer._onTimeout));
  }
  return list;
}

module.exports = { holdings, activeHandles, timerStats, pending, trackOrigins };
