/*
 * natives: the real Node functions qtimers is built on, found once, when qtimers loads.
 *
 * Owns finding them: the native timer functions (for qtimers' own driver timers, and to hand
 * Node's own errors and native handles back to Node), the monotonic clock in its three forms
 * (process.hrtime, process.hrtime.bigint, performance.now), Date.now, queueMicrotask, the
 * nextTick drain and the `timers/promises` functions.  Every other module takes them from here,
 * so there is one place that decides what "native" means.
 *
 * A fake-timers library may have replaced any of them when qtimers loads (jest's and vitest's
 * fake timers, which are @sinonjs/fake-timers, jest's legacy timers, node:test's mock timers),
 * in the global object, in `process`, in `performance` and in the exports of `timers` and
 * `timers/promises`.  So a candidate is taken only if it carries none of the marks those
 * libraries leave (isForeign), and a fake that keeps the original it replaced (a sinon clock
 * does) is followed back to it.  The `timers` module is looked at before the globals: inside
 * jest it belongs to the worker's own realm, which the fakes of a test file's sandbox never
 * touch.  Performance.prototype.now is never replaced (the fakes put their own `now` on the
 * object), and Node >= 20 computes it without reading anything a fake can replace.  Where
 * nothing genuine can be reached (node:test keeps Node's timer functions in private fields), a
 * late-binding stand-in takes Node's function the first time it is called after the fake is
 * gone; only that case pays a per-call cost.
 * It must never return a function that something else (qtimers itself, a fake-timers library)
 * put in the place of a native one when the genuine one can be reached, and never change any
 * global or module.
 */
'use strict';

const builtins = require('./builtins');

const nodeTimers = builtins.timers;
const nodeTimersPromises = builtins.timersPromises;
const perfHooks = builtins.perfHooks;
const proc = process;
const realm = globalThis;
const hasOwn = Object.prototype.hasOwnProperty;
const functionToString = Function.prototype.toString;

const TIMER_NAMES = ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval'];
const MAX_UNWRAP = 16;   // fakes installed over fakes; a cycle must not hang the load

/*
 * The marks fake-timers libraries and mocking tools leave on the functions they put in place
 * of Node's (Node's own timer functions have none of them):
 * - @sinonjs/fake-timers (jest's modern timers, vitest) sets `.clock` on every replaced global;
 * - jest.fn() / vi.fn() mocks (jest's legacy timers) have `_isMockFunction`;
 * - node:test's mock.fn() / mock.method() have an own `mock`;
 * - node:test's mock timers are private methods, some bound: named '#...' or 'bound #...';
 *   Node's own functions are never bound, and are named for what they are.
 * isFake(fn): whether fn carries one of them (a test's fake, not a wrapper of Node's function)
 */
function isFake(fn) {
  if (typeof fn !== 'function') return false;
  if (hasOwn.call(fn, 'clock') || hasOwn.call(fn, 'mock') || fn._isMockFunction === true) return true;
  return typeof fn.name === 'string' && /^(bound )?#/.test(fn.name);
}

/* whether fn is not Node's own: a fake, or named other than `name` */
function isForeign(fn, name) {
  if (typeof fn !== 'function') return true;
  if (isFake(fn)) return true;
  return name !== undefined && fn.name !== name;
}

/* the sinon clock a replaced function belongs to, or undefined */
function clockOf(fn) {
  const desc = fn !== null && (typeof fn === 'function' || typeof fn === 'object') ? Object.getOwnPropertyDescriptor(fn, 'clock') : undefined;
  return desc !== undefined && desc.value !== null && typeof desc.value === 'object' ? desc.value : undefined;
}

/*
 * fn itself if it is genuine, else what the fakes it is made of replaced (a sinon clock keeps
 * the original as `_<name>`), or null when that cannot be reached
 */
function genuine(fn, name, nameOf) {
  for (let hops = 0; hops < MAX_UNWRAP; hops++) {
    if (typeof fn !== 'function') return null;
    if (!isForeign(fn, nameOf)) return fn;
    const clock = clockOf(fn);
    if (clock === undefined) return null;
    fn = clock['_' + name];
  }
  return null;
}

/*
 * What a sinon clock saved of the `timers` / `timers/promises` exports it replaced:
 * listName is 'timersModuleMethods' or 'timersPromisesModuleMethods'.  The module's own
 * replacements carry no mark, so they are found through the clock of a replaced global.
 */
function savedByClock(listName, name) {
  for (const globalName of TIMER_NAMES) {
    const clock = clockOf(realm[globalName]) || clockOf(nodeTimers[globalName]);
    const list = clock !== undefined ? clock[listName] : undefined;
    if (!Array.isArray(list)) continue;
    for (const entry of list) if (entry && entry.methodName === name) return entry.original;
  }
  return undefined;
}

/*
 * A stand-in for a function no genuine copy of which can be reached now: it calls whatever
 * is in `holder[name]` until that is genuine, and Node's own function from then on.
 */
const resolvers = new Map();   // stand-in -> () => Node's function, or null while unreachable
function lateBound(holder, name) {
  let found = null;
  const resolve = function resolve() {
    if (found === null) found = genuine(holder[name], name, name);
    return found;
  };
  const stand = {
    [name]: function (...args) {
      return Reflect.apply(found !== null ? found : (resolve() || holder[name]), this, args);
    },
  }[name];
  resolvers.set(stand, resolve);
  return stand;
}

/* Node's own function behind what natives gives for it (a stand-in's, once reachable), or null */
function nodeFunction(fn) {
  const resolve = resolvers.get(fn);
  return resolve === undefined ? fn : resolve();
}

function timerFunction(name) {
  return genuine(nodeTimers[name], name, name) ||
    genuine(savedByClock('timersModuleMethods', name), name, name) ||
    genuine(realm[name], name, name) ||
    lateBound(nodeTimers, name);
}

function promiseFunction(name) {
  return genuine(nodeTimersPromises[name], name, name) ||
    genuine(savedByClock('timersPromisesModuleMethods', name), name, name) ||
    lateBound(nodeTimersPromises, name);
}

// ---------------------------------------------------------------- the clock

const perf = perfHooks.performance;
// Node's own now() lives on the Performance prototype (depth 1 or 2); a fake defines an own one
const performancePrototypeNow = (function findNow() {
  for (let o = Object.getPrototypeOf(perf); o !== null; o = Object.getPrototypeOf(o)) {
    const desc = Object.getOwnPropertyDescriptor(o, 'now');
    if (desc !== undefined) return typeof desc.value === 'function' && !isForeign(desc.value) ? desc.value : null;
  }
  return null;
})();
// Node 18's performance.now() reads the global process.hrtime() on each call, so a fake hrtime
// would move it; Node >= 20's reads the clock itself.
const NOW_READS_PROCESS_HRTIME = performancePrototypeNow === null ||
  functionToString.call(performancePrototypeNow).includes('process.hrtime');

const foundHrtime = genuine(proc.hrtime, 'hrtime', 'hrtime');
const foundHrtimeBigint = foundHrtime !== null ? genuine(foundHrtime.bigint, 'bigint', 'hrtimeBigInt') : null;

// Neither a fake that keeps no original nor anything else leaves no monotonic clock at all:
// if Node >= 20's performance.now is genuine, the hrtime forms are built on it.
const NS_PER_MS = 1e6;
function hrtimeFromPerformance(time) {
  const ns = Math.round(performancePrototypeNow.call(perf) * NS_PER_MS);
  let sec = Math.floor(ns / 1e9);
  let nsec = ns - sec * 1e9;
  if (time !== undefined) {
    sec -= time[0];
    nsec -= time[1];
    if (nsec < 0) { sec -= 1; nsec += 1e9; }
  }
  return [sec, nsec];
}
function hrtimeBigintFromPerformance() {
  return BigInt(Math.round(performancePrototypeNow.call(perf) * NS_PER_MS));
}

// Date.now is V8's own: its source reads `[native code]`, which no fake's does
function isNativeCode(fn, name) {
  return typeof fn === 'function' && fn.name === name && /\{\s*\[native code\]\s*\}\s*$/.test(functionToString.call(fn));
}
const foundDateNow = (function findDateNow() {
  let DateClass = realm.Date;
  for (let hops = 0; hops < MAX_UNWRAP && DateClass; hops++) {
    if (isNativeCode(DateClass.now, 'now')) return DateClass.now;
    const clock = clockOf(DateClass);
    DateClass = clock !== undefined ? clock._Date : undefined;
  }
  return null;
})();

let hrtime = foundHrtime;
let hrtimeBigint = foundHrtimeBigint;
if (foundHrtime === null && !NOW_READS_PROCESS_HRTIME) {
  hrtime = hrtimeFromPerformance;
  hrtimeBigint = hrtimeBigintFromPerformance;
} else if (foundHrtime === null) {
  hrtime = lateBound(proc, 'hrtime');
  hrtimeBigint = lateBound({ get bigint() { return proc.hrtime.bigint; } }, 'bigint');
}

/* performance.now() of the perf_hooks performance object, as Node computes it */
const performanceNow = (function makePerformanceNow() {
  if (!NOW_READS_PROCESS_HRTIME) return performancePrototypeNow.bind(perf);
  // Node 18: the same formula over the genuine hrtime, so that a fake process.hrtime cannot
  // move it; the origin is measured against Node's own now() at load (or, if process.hrtime is
  // already faked, against the epoch)
  const hrMs = function hrMs() {
    const hr = hrtime();
    return hr[0] * 1000 + hr[1] / NS_PER_MS;
  };
  let origin;
  if (performancePrototypeNow !== null && foundHrtime !== null && proc.hrtime === foundHrtime) {
    const before = hrMs();
    const nodeNow = performancePrototypeNow.call(perf);
    origin = (before + hrMs()) / 2 - nodeNow;
  } else {
    origin = hrMs() - (foundDateNow !== null ? foundDateNow() - perf.timeOrigin : 0);
  }
  return function now() {
    return hrMs() - origin;
  };
})();

// a Date faked by something that keeps no original (node:test's): the epoch from the
// monotonic clock
const dateNow = foundDateNow || function now() {
  return Math.floor(perf.timeOrigin + performanceNow());
};

// ---------------------------------------------------------------- the rest

const queueMicrotask = genuine(realm.queueMicrotask, 'queueMicrotask', 'queueMicrotask') ||
  lateBound(realm, 'queueMicrotask');

const natives = {
  // true when this global object is not the realm Node's modules belong to (a jest test
  // file's sandbox): there install() must touch only this realm's globals
  foreignRealm: Object.getPrototypeOf(nodeTimers) !== Object.prototype,
  isForeign,
  isFake,
  nodeFunction,
  hrtime,
  hrtimeBigint,
  performanceNow,
  dateNow,
  queueMicrotask,
  nextTick: genuine(proc.nextTick, 'nextTick', 'nextTick') || lateBound(proc, 'nextTick'),
  // drains the nextTick and microtask queues, as Node does between two native timer callbacks:
  // Node's private process._tickCallback, or null if this Node has none (install.js then leaves
  // Node's timers in place, and the drains run one callback per native turn)
  tickCallback: typeof proc._tickCallback === 'function' ? proc._tickCallback : null,
  promises: {
    setTimeout: promiseFunction('setTimeout'),
    setImmediate: promiseFunction('setImmediate'),
    setInterval: promiseFunction('setInterval'),
    // one object; a fake's own wait/yield on it hide the prototype's, which promises.js uses
    scheduler: nodeTimersPromises.scheduler,
  },
};
for (const name of TIMER_NAMES) natives[name] = timerFunction(name);

// What Node leaves in the callback field of a handle cleared (or an immediate run): null, or
// undefined where clearing cleans the handle (Node >= 24's cleanImmediate and cleanTimer)
natives.clearedCallback = Number(proc.versions.node.split('.')[0]) >= 24 ? undefined : null;

/*
 * run the nextTick and microtask queues, as Node does between two native callbacks; false, running
 * nothing, on a Node without process._tickCallback (Node drains them when the turn ends)
 */
const tickCallback = natives.tickCallback;
natives.runTicks = function runTicks() {
  if (tickCallback === null) return false;
  tickCallback();
  return true;
};

module.exports = natives;
