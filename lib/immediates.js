/*
 * immediates: qtimers' setImmediate queue, run from one native setImmediate.
 *
 * Owns the pending immediates (an ImmediateQueue), their lifecycle (pending, running,
 * destroyed) and reference count, the native driver that drains them, and the knobs of a drain
 * (setImmediate.maxTickDepth and maxTurnMs).  The driver is queued when the first immediate is
 * added and referenced exactly when a referenced immediate is pending (settled at the end of
 * the section, section.js), so with only unref'd immediates left the process exits as Node's
 * would.  Between two callbacks the drain runs the nextTick and microtask queues
 * (natives.runTicks; a Node without them gets one callback per driver turn); a callback that
 * throws leaves the drain with the exception propagating, as a native one, and the `finally`
 * queues a driver for whatever is left: nothing is lost or run twice.  What is counted of
 * them for stats.js is filed inline, in immediate-counts.js's tally.
 * The first immediate queued when nothing is pending rides its driver as the driver's argument
 * (a carrier) instead of waiting in the queue:
 *
 *     setImmediate(A)          native setImmediate(runImmediates, A) -> Node's list -> D
 *     setImmediate(B)          queue: [B]          (A is not in it; D's turn runs A, then B)
 *
 * Nothing here points at A or D while they carry (the carried callback is kept for listings; a
 * clear or unref of A finds D through A._carrier): a second old object pointing at a young one
 * wakes V8's helper thread (docs/decisions.md, "an immediate queued while none is pending rides
 * its own native setImmediate").  Inside a drain, an immediate queued while the turn may still
 * run it joins the turn (the young turn, immediate-turn.js); once a turn ran out of time on
 * long callbacks (`joinless`), what they queue is carried instead when nothing else is pending.
 * It must never call user code except in runImmediates, never allocate per callback there, and
 * never use the globals (they may be qtimers itself, or gone).
 */
'use strict';

// qtimers' own code from here to the end() at the bottom (own-frames.js)
const ownFrom = require('./own-frames').begin();

const natives = require('./natives');
const clock = require('./clock');
const section = require('./section');
const context = require('./context');
const ImmediateQueue = require('./immediate-queue');
const { RAN, THREW, DRAINS, tally } = require('./immediate-counts');
const { turnStarted, turnRanOut, turnIsOver } = require('./immediate-turn');
const { calledInContext, releaseContext } = require('./callback-context');
const { REFED, DESTROYED, CLEARED, EXTRA, CONTEXT } = require('./flags');

// Captured at load: the globals may be replaced (by us) or removed (by tests) later.
const nativeSetImmediate = natives.setImmediate;
const runTicks = natives.runTicks;
const needsEnd = section.needsEnd;
const contextState = context.state;
const NONE = context.NONE;
const ReflectApply = Reflect.apply;
const CLEARED_CALLBACK = natives.clearedCallback;

const settings = {
  // setImmediate.maxTickDepth: how many immediates one event-loop turn runs.  0: exactly those
  // queued before the turn (Node's rule); -N: those, plus up to N queued while it runs; N > 0:
  // up to N in all, newly queued ones included.
  maxTickDepth: -1000,
  // setImmediate.maxTurnMs: immediates queued while a turn runs are run in the same turn only
  // while the turn is younger than this: a recursive setImmediate costs one native turn per
  // 0.05 ms instead of one per callback, and timers, I/O and V8's tasks wait at most 0.05 ms
  // longer than natively (docs/decisions.md, "the young turn lasts 0.05 ms").  Its cost: one
  // clock read per newly queued callback.
  maxTurnMs: 0.05,
};

const queue = new ImmediateQueue();
let refedCount = 0;               // pending immediates with REFED (and a running one, see below)
// 1 while a referenced immediate's callback runs: it is still in refedCount (released after its
// callback), which Node would no longer count: Node uncounts an immediate before running it
let runningRefed = 0;
let driver = null;                // the native Immediate queued to drain the queue, if known here
let driverRefed = false;          // ... or the carrier: is it referenced
let driverContext = null;         // the context `driver` was made in (queueDriver), or null
let drainRunning = false;
// A carrier is queued: a native Immediate whose argument is the first immediate to run (see the
// header); it drains the queue after it.  Kept here: its callback, for forEachPending, and,
// once a clear or unref needed the carrier (then also `driver`), the carried immediate.
let carrierQueued = false;
let carriedCallback = null;
let carried = null;
// During a drain: how many entries at the front of the queue were there when it started
// (maxTickDepth <= 0 runs those before counting new ones).  Read by cancelImmediate.
let preQueued = 0;
// stats.js's hook for an immediate made, while it tracks origins
let onAdd = null;

// ---------------------------------------------------------------- the reference count

function countRef() {
  if (refedCount++ === 0) needsEnd();
}

function uncountRef() {
  if (--refedCount === 0) needsEnd();
}

/* at the end of a section: the driver is referenced exactly when a referenced immediate is pending */
function syncDriver() {
  if (driver === null) return;
  const want = refedCount > 0;
  if (want !== driverRefed) {
    driverRefed = want;
    if (want) driver.ref(); else driver.unref();
  }
}

section.atEnd(syncDriver);

// ---------------------------------------------------------------- the driver

// The native driver's one argument (the carried immediate, or undefined) is also where its drain
// keeps the immediate whose callback runs (executionResource): an array as young as the driver,
// so a store there makes no old object point into the young generation (docs/decisions.md).
function queueMainDriver() {
  return nativeSetImmediate(runImmediates, undefined);
}

// made outside any user's async context (see context.asDriver), or in the frame of the newest
// immediate (context.asDriverIn), which the turn then starts in
function queueDriver() {
  const newest = queue.last();
  driverContext = newest !== undefined && (newest._flags & CONTEXT) ? newest._asyncContext : null;
  driver = driverContext !== null
    ? context.asDriverIn(driverContext, queueMainDriver)
    : context.asDriver(queueMainDriver);
  driverRefed = true;
  if (refedCount === 0) {
    driverRefed = false;
    driver.unref();
  }
}

// ---------------------------------------------------------------- add, cancel, ref

// made outside any user's async context, as a driver (context.asDriver passes imm, no closure)
function queueCarrier(imm) {
  return nativeSetImmediate(runImmediates, imm);
}

/* the first pending immediate rides a native driver of its own (see the header) */
function carry(imm) {
  imm._carrier = imm._flags & CONTEXT ? context.asDriverIn(imm._asyncContext, queueCarrier, imm) : context.asDriver(queueCarrier, imm);
  carrierQueued = true;
  carriedCallback = imm._onImmediate;
  driverRefed = true;               // imm is referenced
}

function addImmediate(imm) {
  const f = imm._flags;
  if (f & REFED) countRef();
  if (queue.length === 0 && driver === null && !carrierQueued && (f & REFED) && onAdd === null &&
      (!drainRunning || turnIsOver())) {
    carry(imm);
    return;
  }
  queue.push(imm);
  if (driver === null && !drainRunning && !carrierQueued) queueDriver();
  if (onAdd !== null) onAdd(imm);
}

/* a clear or unref of the carried immediate may have to unref its carrier: keep both here */
function keepCarrier(imm) {
  driver = imm._carrier;
  carried = imm;
  imm._carrier = null;
}

/* release what a run, throwing or cancelled immediate no longer needs */
function finishImmediate(imm) {
  imm._onImmediate = CLEARED_CALLBACK;
  if (imm._flags & EXTRA) {
    if (imm._argv !== undefined) imm._argv = undefined;   // a field only its own
    if (imm._flags & CONTEXT) releaseContext(imm);
  }
}

function cancelImmediate(imm) {
  const f = imm._flags;
  if (f & DESTROYED) return;
  if (imm._carrier !== null) keepCarrier(imm);
  imm._flags = (f | DESTROYED | CLEARED) & ~REFED;
  if (f & REFED) uncountRef();
  finishImmediate(imm);
  // Cancelled right after it was made (the set/clear pattern): take the slot back, and those of
  // cancelled entries it was hiding (set A, set B, clear A, clear B), so a synchronous loop of
  // such pairs holds no memory; but never an entry the running drain counted as pre-queued.
  if (queue.last() === imm && queue.length > preQueued) {
    do queue.pop();
    while (queue.length > preQueued && queue.last()._flags & DESTROYED);
  }
}

function refImmediate(imm) {
  const f = imm._flags;
  if (f & (REFED | DESTROYED)) return;     // as Node: an immediate that ran or was cleared stays unref'd
  imm._flags = f | REFED;
  countRef();
}

function unrefImmediate(imm) {
  const f = imm._flags;
  if (!(f & REFED)) return;
  if (imm._carrier !== null) keepCarrier(imm);
  imm._flags = f & ~REFED;
  if (!(f & DESTROYED)) uncountRef();
}

// ---------------------------------------------------------------- the drain

function runWithExtras(imm, f) {
  const args = imm._argv;
  if (!calledInContext(imm, imm._onImmediate, args, f)) {
    // Method calls with the arguments spelled out, as on the fast path: Reflect.apply goes
    // through V8's generic array-like call, which costs more than the rest of the callback's
    // bookkeeping.  setImmediate made the array, one to three long unless there were more.
    if (args === undefined) imm._onImmediate();
    else if (args.length === 1) imm._onImmediate(args[0]);
    else if (args.length === 2) imm._onImmediate(args[0], args[1]);
    else if (args.length === 3) imm._onImmediate(args[0], args[1], args[2]);
    else ReflectApply(imm._onImmediate, imm, args);
  }
  finishImmediate(imm);
}

function runImmediates(carriedImm) {
  driver = null;
  let turnContext = driverContext;
  driverContext = null;
  const runningSlot = this._argv;   // Node calls the driver as its Immediate's method
  // a driver made at a call in the program's context (context.makeDriver) leaves it first
  if (contextState.programHooks) context.leaveDriverContext();
  // a carrier's turn: its immediate runs first (nothing was pending when it was queued)
  let first = null;
  if (carriedImm !== undefined) {
    carrierQueued = false;
    carriedCallback = null;
    carried = null;
    carriedImm._carrier = null;
    first = carriedImm;
    turnContext = carriedImm._flags & CONTEXT ? carriedImm._asyncContext : null;
  }
  // Node runs the turn in the context its driver was made in (context.asDriverIn)
  if (turnContext !== null) context.enterTurn(turnContext);
  drainRunning = true;
  tally[DRAINS] += 1;
  section.drainStarted();
  // settings.maxTickDepth: `newBudget` is how many callbacks may still run beyond those queued
  // before the turn
  const depth = settings.maxTickDepth;
  let newBudget;
  if (depth > 0) {
    preQueued = 0;
    newBudget = depth;
  } else {
    preQueued = queue.length;
    newBudget = -depth;
  }
  // ... and newly queued callbacks run only while the turn is younger than maxTurnMs
  const turnMs = settings.maxTurnMs;
  const turnStart = newBudget > 0 && turnMs !== Infinity ? clock.preciseNow() : 0;
  turnStarted(newBudget, turnMs, turnStart);
  let ran = 0;                      // callbacks started in this turn
  // The handle whose callback is running.  A try/finally around each call would cost more than
  // the rest of the loop, so the one around the loop cleans up after a callback that threw.
  let running = null;
  let runningWasRefed = false;
  // Ticks and microtasks are drained before the next callback, not after each one; after the
  // last, here too while the turn may still run what they queue, else by Node when the driver
  // returns.
  let ticksOwed = false;
  try {
    for (;;) {
      // When the queue is empty, the last callback's ticks and promise jobs may still queue
      // more (an `await setImmediate()` loop does): drained now, as Node would drain them
      // right after this driver returns, they get their chance at this turn's budget.
      if (first === null && preQueued === 0 && (newBudget === 0 || (queue.length === 0 && !ticksOwed))) break;
      if (ticksOwed) {
        if (!context.ticksInTurn(runTicks)) break;   // none on this Node: Node drains them when this turn ends; the rest wait
        ticksOwed = false;
        continue;           // the ticks may have cleared or queued immediates: look again
      }
      let imm;
      if (first !== null) {
        imm = first;
        first = null;
        if (depth > 0 && !(imm._flags & DESTROYED)) newBudget -= 1;   // N > 0 counts every callback run
      } else if (preQueued > 0) {
        preQueued -= 1;
        imm = queue.shift();
      } else {
        // a carrier was queued while this turn ran: all queued after it run after it
        if (carrierQueued) break;
        // the turn is old: the rest wait for the next one, after timers and I/O
        if (ran > 0 && turnMs !== Infinity) {
          const age = clock.preciseNow() - turnStart;
          if (age >= turnMs) {
            turnRanOut(age, ran);
            break;
          }
        }
        imm = queue.shift();
        if (imm._flags & DESTROYED) continue;   // cancelled entries cost no budget
        newBudget -= 1;
      }
      const f = imm._flags;
      if (f & DESTROYED) continue;
      imm._flags = (f | DESTROYED) & ~REFED;    // as in Node: destroyed before it runs
      // Its reference is released after its callback, not before: a callback that queues the
      // next immediate (a loop) then never takes the count through zero and back.
      running = imm;
      runningSlot[0] = imm;
      runningWasRefed = (f & REFED) !== 0;
      runningRefed = runningWasRefed ? 1 : 0;
      tally[RAN] += 1;
      if (f & EXTRA) {
        runWithExtras(imm, f);
      } else if (contextState.mode === NONE) {
        // a method call: `this` is the handle, and the callback's own .call/.apply are not used
        imm._onImmediate();
        imm._onImmediate = CLEARED_CALLBACK;    // a handle the program keeps must not keep its callback alive
      } else {
        context.callWithoutContext(imm._onImmediate, imm, undefined);
        imm._onImmediate = CLEARED_CALLBACK;
      }
      running = null;
      runningRefed = 0;
      ran += 1;
      if (runningWasRefed) uncountRef();
      clock.callbackRan();
      ticksOwed = true;
    }
  } finally {
    // normal end, or a callback (or a nextTick callback) threw: whatever is left runs next turn
    context.leaveTurn();
    runningRefed = 0;
    if (running !== null) {
      tally[THREW] += 1;
      finishImmediate(running);
      if (runningWasRefed) uncountRef();
    }
    preQueued = 0;
    drainRunning = false;
    if (queue.length > 0 && driver === null && !carrierQueued) queueDriver();
    section.drainEnded();
  }
}

// ---------------------------------------------------------------- what it holds

/* a carrier is queued and its immediate was not cleared (one not kept here never was) */
function carriedPending() {
  return carrierQueued && (carried === null || !(carried._flags & DESTROYED));
}

/*
 * visit(imm) for every pending immediate, in the order they run: a carried one first, then the
 * queue, read from its segments in place (ImmediateQueue has no iterator, and its push/shift
 * path must stay as it is), skipping the cancelled entries it still holds.  A carried immediate
 * not kept here is visited as what it is while not kept: referenced, with its callback.
 */
function forEachPending(visit) {
  if (carriedPending()) visit(carried !== null ? carried : { _flags: REFED, _onImmediate: carriedCallback });
  const mask = ImmediateQueue.SEGMENT_SIZE - 1;
  for (let seg = queue.head; seg !== null; seg = seg.next) {
    for (let k = 0; k < seg.count; k++) {
      const imm = seg.slots[(seg.bottom + k) & mask];
      if (!(imm._flags & DESTROYED)) visit(imm);
    }
  }
}

/* stats.js's hook for every immediate made from now on (null: none) */
function onImmediateAdded(hook) {
  onAdd = hook;
}

/* the queue's and the driver's state now, for stats.js */
function snapshot() {
  return {
    // cancelled entries not yet shifted included, a cancelled carried one not
    queued: queue.length + (carriedPending() ? 1 : 0),
    refed: refedCount,
    refedRunning: runningRefed,       // counted in `refed`, but running (Node no longer counts it)
    driverQueued: driver !== null || carrierQueued,
    driverRefed,
  };
}

/*
 * the immediate whose callback runs, when `resource` (what Node's executionAsyncResource()
 * answers) is the native driver running it; null otherwise
 */
function executionResource(resource) {
  if (!drainRunning || resource === null || typeof resource !== 'object' ||
      resource._onImmediate !== runImmediates) return null;
  // the last one started, while its callback runs: destroyed and its callback not yet released
  const imm = resource._argv[0];
  return imm !== undefined && (imm._flags & DESTROYED) !== 0 && imm._onImmediate !== CLEARED_CALLBACK ? imm : null;
}

module.exports = {
  settings, executionResource,
  addImmediate, cancelImmediate, refImmediate, unrefImmediate,
  snapshot, forEachPending, onImmediateAdded,
};

require('./own-frames').end(ownFrom);
