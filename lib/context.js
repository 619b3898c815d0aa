/*
 * context: async context (AsyncLocalStorage stores, async_hooks, domains) for qtimers callbacks.
 *
 * Owns deciding whether a scheduled callback must carry async context, capturing it, and running
 * the callback inside it.  Native timers are async resources: a callback sees the
 * AsyncLocalStorage stores, async_hooks ids and domain of the code that scheduled it, and tools
 * that watch async resources see each timer.  qtimers runs many callbacks from one native
 * driver, so it carries that context itself, in one of three modes:
 *   - none: nothing can observe it.  No store was ever entered, no async hook was ever enabled
 *     (the program's, a domain's, or the one behind AsyncLocalStorage before Node 24).  A timer
 *     pays one test.
 *   - frames: Node keeps stores in async context frames and no hook or domain was ever enabled,
 *     so the frame current when a timer is scheduled is all a callback can observe: the timer
 *     keeps a reference to that frame (shared, as Node's timers share it) and no resource of its
 *     own, and its callback runs in it, inside one scope of qtimers' own (whose async id
 *     executionAsyncId() reads there, as it reads a driver's in mode none).  A timer scheduled
 *     by such a callback in its own scope keeps the callback's frame unread, while no enterWith()
 *     (watched for that, where it could be from the start) changed it.  A driver of immediates
 *     is made in the frame of the immediate its turn starts with, so that Node enters that frame
 *     for the turn: its callbacks of that frame run with no scope of their own, executionAsyncId()
 *     reading the driver's, until one enters a store.
 *   - resources: anything else.  A timer carries an AsyncResource named like Node's
 *     ('Timeout', 'Immediate'), made when it is scheduled and destroyed when it is done, and its
 *     callback runs inside it: hooks see its init/before/after/destroy and ids, the stores are
 *     Node's own (copied by Node's storage hook before Node 24, the captured frame from Node 24 on,
 *     whatever stores exist, even ones entered before qtimers loaded), a domain is the
 *     resource's.  Exact by construction, which a cheaper copy of known stores is not: before
 *     Node 24 a store entered inside an interval's callback stays for its next run and
 *     disable() hides a store from callbacks already scheduled.  Its hasRef() is its timer's,
 *     so open-handle tools see exactly the timers that keep the process alive.
 * Where Node keeps stores in async context frames (Node >= 24, or 22 with the flag), a store
 * entered before qtimers loaded may be current in continuations qtimers cannot see.  None can
 * have been if Node's AsyncLocalStorage class was never loaded: from Node 22 on Node loads it
 * lazily, on the first read of async_hooks.AsyncLocalStorage, and process.moduleLoadList says
 * whether it did.  Then (`node -r qtimers`, `--import qtimers/register`, `require('qtimers')`
 * or `import 'qtimers/install'` on an app's first line) the mode is learnt at the class's
 * run() and enterWith(), the only doors to a frame that holds a store; else it is frames
 * from the start (resources where Node's frame symbol cannot be found).  Hooks, domains and
 * (before frames) stores are learnt by wrapping AsyncHook's enable() (context-watch.js, which
 * watches the doors; this module decides the mode), the one door every hook, every domain and
 * the first AsyncLocalStorage store pass through, whether their module was loaded before
 * qtimers or after; hooks already enabled when qtimers loads show on promises (an init hook
 * stamps async ids on them).  The mode only goes up.
 * qtimers' own native drivers are made outside the program's context: inside a scope of the
 * context qtimers loaded in while no hook of the program's can see that scope; once one can
 * (a hook-based context manager must not see a stray before/after inside the program's code),
 * they are made where they are needed, with no domain, and are hidden from open-handle tools.
 * It must never allocate for a timer in mode none, never hold a context longer than its timer
 * is pending, and never let a hook see a scope qtimers entered in the middle of program code.
 */
'use strict';

// qtimers' own code from here to the end() at the bottom (own-frames.js)
const ownFrom = require('./own-frames').begin();

const proc = process;

// first: it reads whether Node's AsyncLocalStorage class was loaded before anything here loads it
const watch = require('./context-watch');
const asyncHooks = require('./builtins').asyncHooks;
const { AsyncResource, AsyncLocalStorage } = asyncHooks;

const ReflectApply = Reflect.apply;
const EMPTY = Object.freeze([]);

const NONE = 0;
const FRAMES = 1;
const RESOURCES = 2;

const state = {
  mode: NONE,
  // an async hook other than Node's own storage hook has been enabled (or was, before load)
  programHooks: false,
};

// ---------------------------------------------------------------- the resources

// requireManualDestroy: a timer's resource is destroyed when the timer is done, as Node's are,
// not when it is garbage collected
const MANUAL_DESTROY = { requireManualDestroy: true };

/* the async resource of one timer, as observable as the native handle it stands for */
class TimerResource extends AsyncResource {
  constructor(type, handle) {
    super(type, MANUAL_DESTROY);
    this.handle = handle;
  }

  // what open-handle tools (why-is-node-running, jest --detectOpenHandles) ask a Timeout
  hasRef() {
    return this.handle.hasRef();
  }
}

/* the scope of code that runs as if from the top level; it keeps nothing alive */
class RootScope extends AsyncResource {
  hasRef() {
    return false;
  }
}

// Made at load, so it carries no store and no domain of any later code.  A callback scheduled
// before tracking began runs in it, not in whatever context its drain's driver was made in.
const rootScope = new RootScope('qtimers');

// ---------------------------------------------------------------- learning the mode

// Nothing left to learn once resources are carried and program hooks are known to be on.
function dropWrappersIfDone() {
  if (state.mode !== RESOURCES || !state.programHooks) return;
  watch.stopWatching();
}

function raiseMode(mode) {
  if (mode <= state.mode) return;
  state.mode = mode;
  watch.stopWatchingStores();
  dropWrappersIfDone();
}

// what must happen before the program's first hook can watch (timeouts.js: a driver it keeps)
let beforeProgramHook = null;

function noteProgramHook() {
  if (!state.programHooks && beforeProgramHook !== null) beforeProgramHook();
  state.programHooks = true;
  raiseMode(RESOURCES);
  dropWrappersIfDone();
}

/* fn() is called once, before the first of the program's own hooks is enabled */
function onProgramHook(fn) {
  beforeProgramHook = fn;
}

/* carry full async context (AsyncResources) from now on; the default mode learns it itself */
function trackAsyncContext() {
  raiseMode(RESOURCES);
}

// Already in use before we were loaded?  An enabled init hook stamps async ids on promises; a
// domain may be active.  Which hook it is cannot be told, so it counts as the program's.
if (Object.getOwnPropertySymbols(Promise.resolve()).length > 0 || proc.domain) {
  state.programHooks = true;
  state.mode = RESOURCES;
}

// Where AsyncLocalStorage keeps its stores in hooks (Node 18-22; 24+ with
// --no-async-context-frame), the class reaches Node's own storage hook through its _enable
// method; the class that keeps them in async context frames has none.  Read, never called.
const storesInFrames = AsyncLocalStorage !== undefined &&
  typeof AsyncLocalStorage.prototype._enable !== 'function';

// Where stores are in frames, an AsyncResource keeps the frame current when it was made under a
// symbol of Node's, and runInAsyncScope() enters that frame: frames mode reads and writes only
// that property (found by its description; without it, frames mode is resources mode).
const FRAME = storesInFrames
  ? Object.getOwnPropertySymbols(rootScope).find((symbol) => symbol.description === 'context_frame')
  : undefined;
const STORE_MODE = FRAME !== undefined ? FRAMES : RESOURCES;
// the scope every callback of frames mode runs in, its frame set to the callback's for the call
const frameScope = new RootScope('qtimers');
// what a timer keeps that was scheduled in no frame (no store current): a callback runs in none
const NO_FRAME = Object.freeze({});
// the id executionAsyncId() reads inside frameScope, and nowhere else
const frameScopeId = frameScope.asyncId();
const executionAsyncId = asyncHooks.executionAsyncId;
/*
 * The frame (or NO_FRAME) of the callback frames mode is running, while it is surely still the
 * current one, else UNKNOWN_FRAME.  Inside the callback's own scope (executionAsyncId() is
 * frameScope's: not in a nested scope, tick or native callback, which each enter their own id)
 * the frame changes only by enterWith(), which resets this: so a timer the callback schedules
 * keeps this frame without a new AsyncResource to read it (what that saves: docs/decisions.md,
 * "carrying a frame costs what Node's own timers pay").
 * Only where enterWith() was watched from before any program code could hold Node's own.
 */
const UNKNOWN_FRAME = Object.freeze({});
let runningFrame = UNKNOWN_FRAME;
let runningScopeId = frameScopeId;      // the async id of the scope runningFrame is current in
let framesWatched = false;
// the scope asDriverIn makes a driver in, in a frame (an id of its own: not frameScope's)
const driverScope = new RootScope('qtimers');

if (!state.programHooks) {
  // Node's own storage hook (the program's first store) or the program's hook (context-watch.js)
  watch.watchEnable(function storageEnabled() { raiseMode(RESOURCES); }, noteProgramHook);
  // async context frames: a store entered before we loaded may be current in any callback,
  // unless the class was never loaded before us; then the first store the program enters,
  // through run() or enterWith() (withScope() calls enterWith()), starts tracking before it is
  // entered.  enterWith() stays watched while frames mode may last: it is the one door by which
  // code changes the frame it runs in (see runningFrame)
  if (storesInFrames) {
    if (watch.storageUsedBefore) raiseMode(STORE_MODE);
    else {
      watch.watchStores(AsyncLocalStorage, function storeRun() {
        raiseMode(STORE_MODE);
      }, function storeEntered() {
        runningFrame = UNKNOWN_FRAME;
        raiseMode(STORE_MODE);
      });
      framesWatched = true;
    }
  }
}

// ---------------------------------------------------------------- capturing and running

/* the context to carry for `handle`, scheduled now (state.mode is not NONE) */
function timerResource(type, handle) {
  if (state.mode !== FRAMES) return new TimerResource(type, handle);
  if (runningFrame !== UNKNOWN_FRAME && executionAsyncId() === runningScopeId) return runningFrame;
  // the frame, read where Node's own AsyncResource keeps it; the resource itself is dropped
  const frame = new AsyncResource(type, MANUAL_DESTROY)[FRAME];
  return frame === undefined ? NO_FRAME : frame;
}

/*
 * whether a timer's context is a TimerResource, not a frame of frames mode (or NO_FRAME): one
 * read that a frame answers from its map (instanceof would walk a frame's prototypes, the cost
 * of a callback's whole bookkeeping in a store)
 */
function isResource(ctx) {
  return typeof ctx.emitDestroy === 'function';
}

/*
 * whether a callback of context `ctx` is to be called as it is: its frame is its turn's, current
 * in the turn's scope (enterTurn)
 */
function inTurn(ctx) {
  return ctx === runningFrame && state.mode === FRAMES && executionAsyncId() === runningScopeId;
}

/* call fn with `thisArg` and `args` (an array or undefined) in a frame kept by frames mode */
function callInFrame(frame, fn, thisArg, args) {
  const outerFrame = runningFrame;
  const outerScopeId = runningScopeId;
  frameScope[FRAME] = frame === NO_FRAME ? undefined : frame;
  if (framesWatched) {
    runningFrame = frame;
    runningScopeId = frameScopeId;
  }
  try {
    return args === undefined
      ? frameScope.runInAsyncScope(fn, thisArg)
      : frameScope.runInAsyncScope(fn, thisArg, ...args);
  } finally {
    frameScope[FRAME] = undefined;      // the frame is the timer's to keep, not ours
    // runInAsyncScope put the outer frame back, even if the callback entered a store
    runningFrame = outerFrame;
    runningScopeId = outerScopeId;
  }
}

/* call fn with `thisArg` and `args` (an array or undefined) inside its timer's context */
function callIn(ctx, fn, thisArg, args) {
  if (!isResource(ctx)) return callInFrame(ctx, fn, thisArg, args);
  // A domain must still be active when a throw reaches Node's handler, as with native timers;
  // runInAsyncScope leaves it on the way out, so hold our own reference to it across the call.
  const domain = ctx.domain;
  if (domain) domain.enter();
  const result = args === undefined
    ? ctx.runInAsyncScope(fn, thisArg)
    : ctx.runInAsyncScope(fn, thisArg, ...args);
  if (domain) domain.exit();
  return result;
}

/*
 * call fn for a callback that carries no context (scheduled before tracking began): it runs as
 * if from the top level, not in the context its drain's driver was made in
 */
function callWithoutContext(fn, thisArg, args) {
  return rootScope.runInAsyncScope(ReflectApply, null, fn, thisArg, args === undefined ? EMPTY : args);
}

/* the timer is done with its context: hooks see it destroyed, as a native timer's */
function release(ctx) {
  if (isResource(ctx)) ctx.emitDestroy();
}

// ---------------------------------------------------------------- qtimers' own drivers

function returnFalse() {
  return false;
}

/*
 * fn(arg) called as if from the top level: no store, no async parent, no active domain.  While
 * a program's hook may watch, no scope is entered (a hook-based context manager would see a
 * before/after of a resource it never saw created, in the middle of the program's code, and
 * lose its place); the driver is then made in the current context, and every callback runs in
 * a scope of its own anyway.
 */
function callAtRoot(fn, arg) {
  const domain = proc.domain;
  if (domain) proc.domain = null;   // a domain's init hook adopts whatever process.domain is
  try {
    return state.programHooks ? fn(arg) : rootScope.runInAsyncScope(fn, null, arg);
  } finally {
    if (domain) proc.domain = domain;
  }
}

/*
 * at the top of a driver's callback, while a program's hook may watch: a scope of our own,
 * entered and left at once.  A hook-based context manager that entered the context the driver
 * was made in leaves it there (OpenTelemetry's AsyncHooksContextManager enters on `before` only
 * a context it saw at `init`, and leaves one on every `after`), so callbacks scheduled with no
 * context see none, as at the loop's top natively; one that enters nothing for an unknown
 * resource sees a balanced pair.  No program code runs in between.
 */
function leaveDriverContext() {
  rootScope.runInAsyncScope(returnFalse);
}

/*
 * make (or re-arm, for a native timer that may have fired) one of qtimers' native drivers:
 * create(arg) at the top level, and the driver it made or re-armed is hidden from open-handle
 * tools (its hasRef() answers false; the process is kept alive by its ref count, which Node
 * reads, not by hasRef()): the timers it runs are listed themselves, by their resources
 */
function makeDriver(create, arg) {
  const made = callAtRoot(create, arg);
  const driver = made !== undefined ? made : arg;
  driver.hasRef = returnFalse;
  return made;
}

/* create(arg) making or re-arming a native driver: through makeDriver once context is tracked */
function asDriver(create, arg) {
  return state.mode !== NONE ? makeDriver(create, arg) : create(arg);
}

/*
 * create(arg) making a native driver of immediates (immediates.js) whose turn starts with a
 * callback of context `ctx`: in frames mode it is made in that frame, so Node enters the frame
 * for the turn, and the turn's callbacks of the same frame (an immediate batch scheduled
 * together shares one) run in it with no scope of qtimers' own (enterTurn).  Else as asDriver.
 */
function asDriverIn(ctx, create, arg) {
  if (state.mode !== FRAMES || !framesWatched || isResource(ctx)) return asDriver(create, arg);
  driverScope[FRAME] = ctx === NO_FRAME ? undefined : ctx;
  let made;
  try {
    made = driverScope.runInAsyncScope(create, null, arg);
  } finally {
    driverScope[FRAME] = undefined;
  }
  made.hasRef = returnFalse;          // hidden from open-handle tools, as makeDriver's
  return made;
}

/*
 * a turn of a driver made by asDriverIn(ctx) starts (immediates.js): the frame Node entered for
 * it, and the turn's async id, in which a callback of that frame is called as it is
 * (callInFrame) and a timer scheduled there keeps it
 */
function enterTurn(ctx) {
  if (state.mode !== FRAMES || !framesWatched || isResource(ctx)) return;
  runningFrame = ctx;
  runningScopeId = executionAsyncId();
}

/*
 * the frame a native driver keeps (Node enters it for the driver's callback, which then calls
 * enterTurn(ctx)) to run a callback of context `ctx` first: ctx itself, a frame of frames
 * mode where enterWith() is watched; else undefined (none: the turn is not entered)
 */
function frameToDrive(ctx) {
  if (ctx === null || ctx === NO_FRAME || state.mode !== FRAMES || !framesWatched || isResource(ctx)) return undefined;
  return ctx;
}

/*
 * run the drain's ticks and promise jobs (runTicks): they run in frames of their own, and promise
 * jobs under the turn's async id when no hook is on, so the turn's frame is not trusted there;
 * it is current again after them (Node and V8 put it back), and trusted again
 */
function ticksInTurn(runTicks) {
  const frame = runningFrame;
  // nothing trusted (no turn in a frame): nothing to take away, or to put back after them, since
  // whatever the ticks enter they leave (callIn), and what they leave untrusted stays so
  if (frame === UNKNOWN_FRAME) return runTicks();
  runningFrame = UNKNOWN_FRAME;
  const ran = runTicks();
  runningFrame = frame;           // not after a throw: it stays untrusted until leaveTurn()
  return ran;
}

/* the turn is over (or thrown out of) */
function leaveTurn() {
  runningFrame = UNKNOWN_FRAME;
  runningScopeId = frameScopeId;
}

module.exports = {
  NONE, state, trackAsyncContext, timerResource, callIn, callWithoutContext, release, callAtRoot, asDriver,
  asDriverIn, frameToDrive, enterTurn, inTurn, ticksInTurn, leaveTurn,
  onProgramHook, leaveDriverContext,
};

require('./own-frames').end(ownFrom);
