/*
 * coarse/scenarios: the measurements of `npm run bench:coarse` (issue 32), each run in a fresh
 * process of one build (child.js) and reporting plain numbers.
 *
 *   refresh    refresh() of random ones among N pending 30 s timeouts
 *   setclear   clearTimeout of a random one among N pending 30 s timeouts and a new 30 s
 *              setTimeout in its place
 *   wakeups    N pending timeouts of random 10-60 s delays, refreshed at random by an exact
 *              driver interval for a while (busy), then left alone (idle): the event loop's
 *              turns per second beyond the driver's own, and CPU per second, in each phase
 *   lateness   N pending timeouts of random delays, refreshed at random and re-armed when they
 *              fire, with the loop kept busy part of the time: how late each callback started,
 *              as a fraction of its delay, and whether any started early
 *
 * refresh and setclear work in batches of BATCH calls with a setImmediate between (the main
 * table's server rows do the same), so a batch is one synchronous section as a request's
 * callback is; their figure is calls per CPU-second of the process (user + system, every
 * thread) in the window.  Wakeups are the loop's turns: libuv's own count of its iterations
 * (performance.nodeTiming.uvMetricsInfo.loopCount, Node 20.18+ and 22.8+), which counts a
 * turn however it was woken, so it counts a native timers' list check and a qtimers slot's
 * alike; beside it the process's voluntary context switches (getrusage: each sleep of the
 * loop is one, and so is each of a helper thread's), the only count on Node 18.  Each wakeups
 * window starts right after a full collection (run.js gives every build --expose-gc): a major
 * collection's incremental marking turns the loop once per step (thousands of turns a second
 * with no timer due), and one begun by chance in a window would be counted as wakeups.
 * The random sequences are seeded: every build touches the same timers in the same order.
 * It must never read a clock per timer call in the measured loops of refresh and setclear
 * (a batch reads it once), nor make a timer of its own there but the workload's.
 */
'use strict';

const BATCH = 1000;

function noop() {}

function xorshift(seed) {
  let s = seed | 0;
  return function random(n) {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    return (s >>> 0) % n;
  };
}

function nowMs() {
  return Number(process.hrtime.bigint()) / 1e6;
}

/* a full collection now, where the process was started with --expose-gc */
function collect() {
  if (typeof global.gc === 'function') global.gc();
}

/* the loop's turns (null where libuv's metrics are not exposed) and voluntary context switches */
function loopCounts() {
  const uv = performance.nodeTiming && performance.nodeTiming.uvMetricsInfo;
  return { turns: uv ? uv.loopCount : null, switches: process.resourceUsage().voluntaryContextSwitches };
}

function cpuSeconds(since) {
  const cpu = process.cpuUsage(since);
  return (cpu.user + cpu.system) / 1e6;
}

// batch() is called out of line: inlined into turn(), which runs a few thousand times a second,
// its loop stays in V8's mid tier (Maglev, on Node 24 and 26) for the whole window and the timer
// calls in it are not inlined, where an app's hot call sites reach the top tier; out of line, the
// batch's own loop is optimized on its own, in every build alike (docs/decisions.md, 2026-11-27).
const ReflectApply = Reflect.apply;
const NO_ARGS = [];

/*
 * Calls batch() (BATCH calls) once a turn (setImmediate between) for warmupMs, then for
 * windowMs, and reports the calls per CPU-second and per wall second of the window.
 */
function batches(size, batch, done) {
  const started = nowMs();
  let state = 'warmup';
  let windowStart = 0;
  let cpu0 = null;
  let calls = 0;
  function turn() {
    ReflectApply(batch, undefined, NO_ARGS);
    const now = nowMs();
    if (state === 'warmup') {
      if (now - started < size.warmupMs) return setImmediate(turn);
      state = 'window';
      windowStart = now;
      cpu0 = process.cpuUsage();
      return setImmediate(turn);
    }
    calls += BATCH;
    if (now - windowStart < size.windowMs) return setImmediate(turn);
    const cpu = cpuSeconds(cpu0);
    done({ perCpuSecond: calls / cpu, perSecond: calls / ((now - windowStart) / 1000), calls });
  }
  setImmediate(turn);
}

/* size.timers pending 30 s timeouts, and batches of calls made by batchOf(timers, random) */
function on30sTimeouts(seed, batchOf) {
  return function run(size, done) {
    const timers = new Array(size.timers);
    for (let i = 0; i < size.timers; i++) timers[i] = setTimeout(noop, 30000);
    batches(size, batchOf(timers, xorshift(seed), size.timers), (result) => {
      for (const timer of timers) clearTimeout(timer);
      done(result);
    });
  };
}

const refresh = on30sTimeouts(12345, (timers, random, n) => function refreshBatch() {
  for (let i = 0; i < BATCH; i++) timers[random(n)].refresh();
});

const setclear = on30sTimeouts(54321, (timers, random, n) => function setClearBatch() {
  for (let i = 0; i < BATCH; i++) {
    const k = random(n);
    clearTimeout(timers[k]);
    timers[k] = setTimeout(noop, 30000);
  }
});

/*
 * wakeups: the timers' callbacks do nothing (an idle connection closed); the driver, an
 * interval of driverMs (below any coarse threshold: exact in every build), refreshes
 * refreshesPerTick random timers each tick during warm-up and the busy window, and is cleared
 * for the idle window, which a single timeout ends.
 */
function wakeups(size, done) {
  const random = xorshift(777);
  const span = size.maxDelayMs - size.minDelayMs + 1;
  const timers = new Array(size.timers);
  let fired = 0;
  function onTimeout() { fired += 1; }
  for (let i = 0; i < size.timers; i++) timers[i] = setTimeout(onTimeout, size.minDelayMs + random(span));
  const started = nowMs();
  let ticks = 0;
  let busy = null;
  const driver = setInterval(function refreshTick() {
    ticks += 1;
    for (let i = 0; i < size.refreshesPerTick; i++) timers[random(size.timers)].refresh();
    const now = nowMs();
    if (busy === null && now - started >= size.warmupMs) busy = open();
    else if (busy !== null && busy.closed === undefined && now - busy.at >= size.busyMs) {
      busy.closed = close(busy, now);
      clearInterval(driver);
      const idle = open();
      setTimeout(function endIdle() {
        const idleResult = close(idle, nowMs());
        for (const timer of timers) clearTimeout(timer);
        done({ busy: busy.closed, idle: idleResult, timers: size.timers });
      }, size.idleMs);
    }
  }, size.driverMs);

  /* a window opens right after a full collection (see the header) */
  function open() {
    collect();
    return { at: nowMs(), counts: loopCounts(), cpu0: process.cpuUsage(), ticks, fired };
  }
  function close(phase, at) {
    const seconds = (at - phase.at) / 1000;
    const counts = loopCounts();
    const driverTurns = ticks - phase.ticks;
    return {
      seconds,
      // turns beyond the driver's: each of its ticks is a turn of its own in every build
      turnsPerSecond: counts.turns === null ? null : (counts.turns - phase.counts.turns - driverTurns) / seconds,
      driverTurnsPerSecond: driverTurns / seconds,
      switchesPerSecond: (counts.switches - phase.counts.switches) / seconds,
      cpuPerSecond: cpuSeconds(phase.cpu0) / seconds,
      firedPerSecond: (fired - phase.fired) / seconds,
      refreshesPerSecond: driverTurns * size.refreshesPerTick / seconds,
    };
  }
}

/*
 * lateness: each call that arms or refreshes a timer is preceded by a clock read of the
 * benchmark's: a callback's lateness and its earliness are both measured from it, the call
 * itself coming later, so lateness is never understated and earliness never overstated (a
 * read just after the call would count a pause of the process between the call and the read,
 * a preemption on a loaded machine or a collection, as earliness).  A callback re-arms its
 * timer (refresh()), so timers keep firing.
 * Load: every loadEveryMs the driver also spins for loadMs, and refreshes refreshesPerTick.
 */
function lateness(size, done) {
  const random = xorshift(4242);
  const span = size.maxDelayMs - size.minDelayMs + 1;
  const n = size.timers;
  const timers = new Array(n);
  const delays = new Float64Array(n);
  const before = new Float64Array(n);
  const fractions = [];
  let early = 0;
  let worstEarlyMs = 0;
  let measuring = false;
  function onTimeout(k) {
    const now = nowMs();
    if (measuring) {
      fractions.push((now - before[k] - delays[k]) / delays[k]);
      const ahead = delays[k] - (now - before[k]);
      if (ahead > 1) {
        early += 1;
        worstEarlyMs = Math.max(worstEarlyMs, ahead);
      }
    }
    rearm(k);
  }
  // the clock read just before the call, per call
  function rearm(k) {
    before[k] = nowMs();
    timers[k].refresh();
  }
  let started = 0;
  let driver = null;
  function loadTick() {
    // refresh first, then the load: a build that stamps a timer with the turn's start (as
    // Node's cached loop time does) stamps it before the spin, not after
    for (let i = 0; i < size.refreshesPerTick; i++) rearm(random(n));
    const a = nowMs();
    const spinUntil = nowMs() + size.loadMs;
    while (nowMs() < spinUntil);
    if (!measuring && a - started >= size.warmupMs) measuring = true;
    else if (measuring && a - started >= size.warmupMs + size.windowMs) {
      clearInterval(driver);
      for (const timer of timers) clearTimeout(timer);
      fractions.sort((x, y) => x - y);
      const pick = (q) => fractions.length ? fractions[Math.min(fractions.length - 1, Math.ceil(q * fractions.length) - 1)] : null;
      done({ fired: fractions.length, p50: pick(0.5), p99: pick(0.99), max: pick(1), early, worstEarlyMs,
        minDelayMs: size.minDelayMs, maxDelayMs: size.maxDelayMs });
    }
  }
  // armed in a turn of the loop of their own, not in the main script (whose loop time is the
  // process's start)
  setImmediate(function arm() {
    for (let k = 0; k < n; k++) {
      delays[k] = size.minDelayMs + random(span);
      before[k] = nowMs();
      timers[k] = setTimeout(onTimeout, delays[k], k);
    }
    started = nowMs();
    driver = setInterval(loadTick, size.loadEveryMs);
  });
}

// the sizes of the call-rate scenarios (refresh, setclear)
const CALL_SIZES = {
  full: { timers: 100000, warmupMs: 500, windowMs: 2000 },
  quick: { timers: 100000, warmupMs: 300, windowMs: 700 },
  smoke: { timers: 10000, warmupMs: 50, windowMs: 100 },
};

const SCENARIOS = {
  refresh: {
    label: 'refresh() of random ones among 100k 30 s timeouts', run: refresh,
    sizes: CALL_SIZES,
  },
  setclear: {
    label: 'clearTimeout + setTimeout of 30 s timeouts, 100k pending', run: setclear,
    sizes: CALL_SIZES,
  },
  wakeups: {
    label: '100k timeouts of random 10-60 s, refreshed at random, then idle', run: wakeups,
    sizes: {
      // warm-up past the shortest delay, so that lists and slots come due in the windows
      full: { timers: 100000, minDelayMs: 10000, maxDelayMs: 60000, driverMs: 50, refreshesPerTick: 1000,
        warmupMs: 11000, busyMs: 5000, idleMs: 5000 },
      quick: { timers: 100000, minDelayMs: 1000, maxDelayMs: 6000, driverMs: 50, refreshesPerTick: 1000,
        warmupMs: 1200, busyMs: 1500, idleMs: 1500 },
      smoke: { timers: 5000, minDelayMs: 1000, maxDelayMs: 1500, driverMs: 50, refreshesPerTick: 100,
        warmupMs: 300, busyMs: 300, idleMs: 300 },
    },
  },
  lateness: {
    label: 'lateness of timeouts of random 1-6 s delays under load (20k)', run: lateness,
    sizes: {
      // about 7k callbacks a second and 10k refreshes, the loop busy a sixth of the time
      full: { timers: 20000, minDelayMs: 1000, maxDelayMs: 6000, loadEveryMs: 20, loadMs: 3, refreshesPerTick: 200,
        warmupMs: 2000, windowMs: 8000 },
      quick: { timers: 10000, minDelayMs: 1000, maxDelayMs: 3000, loadEveryMs: 20, loadMs: 3, refreshesPerTick: 100,
        warmupMs: 500, windowMs: 3000 },
      smoke: { timers: 2000, minDelayMs: 1000, maxDelayMs: 1200, loadEveryMs: 20, loadMs: 2, refreshesPerTick: 20,
        warmupMs: 100, windowMs: 1400 },
    },
  },
};

module.exports = { SCENARIOS, BATCH };
