/*
 * immediates: qtimers' setImmediate queue, run from a few native setImmediates (drivers).
 *
 * Owns the pending immediates (an ImmediateQueue), their lifecycle (pending, running,
 * destroyed) and reference count, the native drivers that drain them, and the knobs of a drain
 * (setImmediate.maxTickDepth and maxTurnMs).  The drivers are referenced exactly when a
 * referenced immediate is pending (settled at the end of the section, section.js), so with only
 * unref'd immediates left the process exits as Node's would.  Between two callbacks the drain
 * runs the nextTick and microtask queues (natives.runTicks; a Node without them gets one
 * callback per driver turn); a callback that throws leaves the drain with the exception
 * propagating, as a native one, and the `finally` hands whatever is left to the next driver:
 * nothing is lost or run twice.  What is counted for stats.js is filed in immediate-counts.js;
 * what is pending is read through held() by immediate-listing.js.
 * Each immediate runs where Node would have put it among native immediates: the first queued
 * when nothing is pending rides a driver of its own as its argument (a carrier); the next join
 * the newest main driver's block while that driver is still the last of Node's list
 * (node-immediates.js), else start a block with a driver of their own (immediate-blocks.js):
 *
 *     setImmediate(A)          native setImmediate(runImmediates, A)   Node's list: C
 *     setImmediate(B)          queue: [B], driver D1 owns 1             Node's list: C D1
 *     (native) setImmediate(M)                                          Node's list: C D1 M
 *     setImmediate(E)          queue: [B E], driver D2 owns 1           Node's list: C D1 M D2
 *
 * A turn runs its own entries and those of the drivers right after it in Node's list (C's runs
 * A, then B; D1 is cleared); inside a drain an immediate queued while the turn may still run it
 * joins the turn (the young turn, immediate-turn.js) when no other block is pending.  Nothing
 * here points at a carried immediate or its carrier (the carried callback is kept for listings;
 * a clear or unref finds the carrier through `_carrier`): a second old object pointing at a
 * young one wakes V8's helper thread (docs/decisions.md, "an immediate queued while none is
 * pending rides its own native setImmediate").
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
const ImmediateBlocks = require('./immediate-blocks');
const { stillLast } = require('./node-immediates');
const { RAN, THREW, DRAINS, tally } = require('./immediate-counts');
const { turnStarted, turnRanOut, turnIsOver } = require('./immediate-turn');
const { calledInContext, releaseContext } = require('./callback-context');
const { REFED, DESTROYED, CLEARED, EXTRA, CONTEXT } = require('./flags');

// Captured at load: the globals may be replaced (by us) or removed (by tests) later.
const nativeSetImmediate = natives.setImmediate;
const nativeClearImmediate = natives.clearImmediate;
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
const blocks = new ImmediateBlocks();   // which pending main driver runs which queue entries
let refedCount = 0;               // pending immediates with REFED (and a running one, see below)
// 1 while a referenced immediate's callback runs: it is still in refedCount (released after its
// callback), which Node would no longer count: Node uncounts an immediate before running it
let runningRefed = 0;
let driverRefed = false;          // are the pending drivers (the carrier among them) referenced
let drainRunning = false;
// A carrier is queued: a native Immediate whose argument is the first immediate to run (see the
// header); its turn runs that one first.  Kept here: its callback, for forEachPending, and, once a
// clear or unref needed the carrier, the carrier and the carried immediate.
let carrierQueued = false;
let carriedCallback = null;
let carried = null;
let carrier = null;
// During a drain: how many of the turn's own entries at the front of the queue it has still to
// run (maxTickDepth <= 0 runs those before counting new ones).  Read by cancelImmediate.
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

function refDriver(d) {
  d.ref();
}

function unrefDriver(d) {
  d.unref();
}

/* at the end of a section: the drivers are referenced exactly when a referenced immediate is pending */
function syncDriver() {
  if (blocks.length === 0 && carrier === null) return;
  const want = refedCount > 0;
  if (want !== driverRefed) {
    driverRefed = want;
    const set = want ? refDriver : unrefDriver;
    if (carrier !== null) set(carrier);
    blocks.forEachDriver(set);
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

/*
 * a driver for the newest `count` entries of the queue, made outside any user's async context
 * (see context.asDriver), or in the frame of the newest immediate (context.asDriverIn), which
 * its turn then starts in; referenced as the pending drivers are (syncDriver settles them all)
 */
function queueDriver(count) {
  const newest = queue.last();
  const made = newest !== undefined && (newest._flags & CONTEXT) ? newest._asyncContext : null;
  const d = made !== null ? context.asDriverIn(made, queueMainDriver) : context.asDriver(queueMainDriver);
  if (blocks.length === 0 && !carrierQueued) driverRefed = refedCount > 0;
  blocks.push(d, made, count);
  if (!driverRefed) d.unref();
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

/*
 * An immediate runs where Node would have put it in its list: in the running turn if it takes
 * it (immediate-turn.js); else carried, when nothing is pending; else in the newest driver's
 * turn, while that driver is still the last of Node's list; else in a driver of its own.  The
 * first and the last are out of line: the hot paths (a loop, a batch) must stay small enough
 * for V8 to inline into the program's call sites.
 */
function addImmediate(imm) {
  const f = imm._flags;
  if (f & REFED) countRef();
  if (blocks.length === 0 && !carrierQueued) {
    if (!drainRunning || turnIsOver()) {
      addAlone(imm, f);
      return;
    }
    queue.push(imm);
  } else {
    queue.push(imm);
    if (stillLast(blocks.newest)) blocks.grow();
    else queueDriver(1);
  }
  if (onAdd !== null) onAdd(imm);
}

/* nothing is pending that it could join */
function addAlone(imm, f) {
  if (queue.length === 0 && (f & REFED) && onAdd === null) {
    carry(imm);
    return;
  }
  queue.push(imm);
  queueDriver(1);
  if (onAdd !== null) onAdd(imm);
}

/* a clear or unref of the carried immediate may have to unref its carrier: keep both here */
function keepCarrier(imm) {
  carrier = imm._carrier;
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
  // such pairs holds no memory; but never an entry the running drain counted as pre-queued, nor
  // one of an older block than the newest (the tail is the newest block's while there is one).
  if (queue.last() === imm) {
    while (queue.length > preQueued && queue.last()._flags & DESTROYED) {
      if (blocks.length > 0 && !blocks.shrink()) break;
      queue.pop();
    }
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
  const runningSlot = this._argv;   // Node calls the driver as its Immediate's method
  // a driver made at a call in the program's context (context.makeDriver) leaves it first
  if (contextState.programHooks) context.leaveDriverContext();
  // a carrier's turn: its immediate runs first (nothing was pending when it was queued); a main
  // driver's: the entries its block owns, at the queue's front (Node runs the drivers in order)
  let first = null;
  let turnContext = null;
  let own = 0;
  if (carriedImm !== undefined) {
    carrierQueued = false;
    carriedCallback = null;
    carried = null;
    carrier = null;
    carriedImm._carrier = null;
    first = carriedImm;
    turnContext = carriedImm._flags & CONTEXT ? carriedImm._asyncContext : null;
  } else if (blocks.isOldest(this)) {
    turnContext = blocks.oldestContext();
    own = blocks.shift();
  }
  // ... and those of the drivers right after it in Node's list, which are cleared: with nothing
  // native between, one turn runs them in the same order as several would
  for (let next = this._idleNext; blocks.isOldest(next); next = this._idleNext) {
    own += blocks.shift();
    nativeClearImmediate(next);
  }
  // Node runs the turn in the context its driver was made in (context.asDriverIn)
  if (turnContext !== null) context.enterTurn(turnContext);
  drainRunning = true;
  tally[DRAINS] += 1;
  section.drainStarted();
  // settings.maxTickDepth: `newBudget` is how many callbacks may still run beyond those queued
  // before the turn; newly queued ones only while the turn is younger than maxTurnMs (0: none,
  // so that each is queued in its place among Node's at once: immediate-turn.js)
  const depth = settings.maxTickDepth;
  const turnMs = settings.maxTurnMs;
  let newBudget;
  if (depth > 0) {
    preQueued = 0;
    newBudget = depth;
  } else {
    preQueued = own;
    newBudget = turnMs > 0 ? -depth : 0;
  }
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
      // (the turn's entries are those at the queue's front that no pending block owns)
      if (first === null && preQueued === 0 && (newBudget === 0 || (queue.length === blocks.owned() && !ticksOwed))) break;
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
    // what this turn leaves (a throw, maxTickDepth's budget) runs before the pending blocks' own
    const left = queue.length - blocks.owned();
    if (left > 0) {
      if (blocks.length > 0) blocks.addToOldest(left);
      else queueDriver(left);
    }
    section.drainEnded();
  }
}

// ---------------------------------------------------------------- what it holds

/*
 * what is pending, read for immediate-listing.js (stats.js, executionAsyncResource()): the
 * queue itself, the carrier's state and the counts; made at each call, which no hot path makes
 */
function held() {
  return {
    queue, carrierQueued, carried, carriedCallback, refedCount, runningRefed,
    drivers: blocks.length, driverRefed,
  };
}

/* the running turn's driver's slot of the immediate whose callback runs, when `resource` is a
   driver whose turn runs now (Node calls a driver as its Immediate's method); else undefined */
function runningSlotOf(resource) {
  if (!drainRunning || resource === null || typeof resource !== 'object' ||
      resource._onImmediate !== runImmediates) return undefined;
  return resource._argv;
}

/* stats.js's hook for every immediate made from now on (null: none) */
function onImmediateAdded(hook) {
  onAdd = hook;
}

module.exports = {
  settings, addImmediate, cancelImmediate, refImmediate, unrefImmediate,
  held, runningSlotOf, onImmediateAdded,
};

require('./own-frames').end(ownFrom);
