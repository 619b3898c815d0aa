/*
 * The timing contract, against native Node measured in the same test (test/fixtures/timing/*):
 *   - never early: a timer armed after synchronous work, from every place a program arms one
 *     (main script, nextTick, promise job, timeout/immediate/I/O callback, refresh(),
 *     setInterval, timers/promises, scheduler.wait) fires no sooner than its delay after the
 *     arming call, give or take Node's 1 ms granularity (an interval's next period: 2 ms, see
 *     READ_BEFORE_CALLBACK_MS); and not later than native does
 *   - each delay, junk ones too (NaN, negative, Infinity, above 2^31-1, strings, objects), takes
 *     as long as natively, with the same warnings: 60 timers of each, the 10th percentile or
 *     the median within 0.5 ms of native's (see TIGHT)
 *   - intervals keep their period when their callback works 0, 30 or 60 ms of a 40 ms period,
 *     and a 5 ms interval's period over 100 periods is native's within 0.5 ms (its 10th
 *     percentile, in one of up to four pairs of runs)
 *   - a chain of 5 ms immediates delays timeouts and socket data no more than natively
 *   - a timeout that fell due while a timeout's callback ran waits for the millisecond after the
 *     latest clock read (an arming, an interval's start) as natively, and no longer (reading
 *     the time, currentTimestamp(), delays nothing)
 * Only "not early" is absolute; lateness and periods are compared with native's, from runs made
 * side by side, with margins a loaded two-core machine keeps.  The tight ones (0.5 ms, so that
 * 1 ms of added lateness or of drift per period fails) compare figures of many timers from
 * pairs of runs made at once, and repeat a pair rather than widen the margin (TIGHT).  The
 * children run in before(), two at a time, each with a watchdog, and each must have run on what
 * it was meant to (test/helpers/probe.js).
 */
'use strict';

const assert = require('assert');
const path = require('path');
const child = require('../helpers/child');

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'timing');

// "Not early" is measured from a moment the program sees before the arming call, except for an
// interval's next period: it counts from a clock reading Node (or qtimers) takes before the
// callback's first line, which is the earliest the program can read the time.  Whatever runs
// between the two (the callback's first-call compile, a preemption on a loaded machine) shortens
// the period the program measures, natively too.
// So that place alone is allowed 1 ms more: a period counted from a reading taken earlier than
// its callback's start still fails once that reading is more than 2 ms early.
const READ_BEFORE_CALLBACK_MS = 1;
const PERIOD_PLACE = 'interval period after work';

// name -> [fixture, args]; every one runs natively and with qtimers
const PROGRAMS = {
  'not-early 1': ['not-early.js', []],
  'not-early 2': ['not-early.js', []],
  'starvation 1': ['starvation.js', []],
  'starvation 2': ['starvation.js', []],
  'lateness 1': ['lateness.js', []],
  'lateness 2': ['lateness.js', []],
  'wake': ['wake.js', []],
  'interval 5 ms 1': ['periods.js', ['0', '5', '100']],
  'interval 5 ms 2': ['periods.js', ['0', '5', '100']],
  // these keep a core busy most of the time: one at a time, so each has a core of its own
  'periods 0': ['periods.js', ['0'], 'alone'],
  'periods 30': ['periods.js', ['30'], 'alone'],
  'periods 60': ['periods.js', ['60'], 'alone'],
};

const results = {};

function median(list) {
  const sorted = list.slice().sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

// how far apart native's and qtimers' figures may be where 1 ms of added lateness or drift must fail
const TIGHT_MS = 0.5;
// how many side-by-side pairs of a tight comparison may be run before a figure counts as differing
const MAX_PAIRS = 4;
// how far qtimers' share of "soon" wakes (test/fixtures/timing/wake.js) may be from native's: a
// preempted trial moves one either way, a wrong wake moves nearly all
const WAKE_SHARE_MARGIN = 0.2;

function near(native, ours) {
  return Math.abs(ours - native) <= TIGHT_MS;
}

/* run PROGRAMS[`${name} 1`] natively and with qtimers at once; done([native, qtimers]) or done(error) */
function runPair(name, done) {
  const [file, args] = PROGRAMS[`${name} 1`];
  const pair = {};
  for (const impl of ['native', 'qtimers']) {
    child.spawn(process.execPath, [path.join(FIXTURES, file), impl].concat(args), 30000, (r) => {
      r.json = child.lastJson(r.out);
      pair[impl] = r;
      if (!pair.native || !pair.qtimers) return;
      try {
        done([judged(`${name} again`, 'native', pair.native), judged(`${name} again`, 'qtimers', pair.qtimers)]);
      } catch (err) {
        done(err);
      }
    });
  }
}

/*
 * The tight comparisons: each key (a delay, a period) must agree, native against qtimers, in
 * one pair of runs made side by side (agree(native, qtimers, key)).  A real difference parts
 * the figures of every pair; a spell of load can part one pair's.  While a key has no agreeing
 * pair, before() adds pairs, up to MAX_PAIRS: runs are repeated, the margin stays.
 */
const TIGHT = {
  'lateness': {
    keys: (n) => Object.keys(n.medians),
    // the 10th percentile or the median: load moves medians up, and natively a stale loop
    // clock moves a low end down (a timer starts at the loop's time, not the call's)
    agree: (n, q, kind) => near(n.lows[kind], q.lows[kind]) || near(n.medians[kind], q.medians[kind]),
    show: (n, q, kind) => `p10 ${q.lows[kind].toFixed(2)}/${n.lows[kind].toFixed(2)}, median ${q.medians[kind].toFixed(2)}/${n.medians[kind].toFixed(2)}`,
  },
  'interval 5 ms': {
    keys: () => ['period'],
    // the low end only: an interval restarts from its callback's start, so no stale clock
    // lowers native's, while load moved these medians apart by 1-1.5 ms
    agree: (n, q) => near(n.low, q.low),
    show: (n, q) => `p10 ${q.low.toFixed(2)}/${n.low.toFixed(2)}, median ${q.median.toFixed(2)}/${n.median.toFixed(2)}`,
  },
};
const tightPairs = {};    // name -> [[native, qtimers], ...], or an Error

/* the keys of TIGHT[name] that no pair agrees on */
function differing(name, pairs) {
  const { keys, agree } = TIGHT[name];
  return keys(pairs[0][0]).filter((key) => !pairs.some(([n, q]) => agree(n, q, key)));
}

/* before(): the pairs of each tight comparison, more of them while a key has no agreeing one */
function settleTight(done) {
  const names = Object.keys(TIGHT);
  const next = () => {
    if (names.length === 0) return done();
    const name = names.shift();
    let pairs;
    try {
      pairs = [1, 2].map((i) => [judged(`${name} ${i}`, 'native', results[`${name} ${i} native`]),
        judged(`${name} ${i}`, 'qtimers', results[`${name} ${i} qtimers`])]);
    } catch (err) {
      tightPairs[name] = err;
      return next();
    }
    const more = () => {
      if (differing(name, pairs).length === 0 || pairs.length >= MAX_PAIRS) {
        tightPairs[name] = pairs;
        return next();
      }
      runPair(name, (pair) => {
        if (pair instanceof Error) {
          tightPairs[name] = pair;
          return next();
        }
        pairs.push(pair);
        more();
      });
    };
    more();
  };
  next();
}

/* each key of TIGHT[name] agrees in some pair */
function assertTight(t, name, message) {
  const pairs = tightPairs[name];
  if (pairs instanceof Error) throw pairs;
  const { keys, show } = TIGHT[name];
  const apart = differing(name, pairs);
  for (const key of keys(pairs[0][0])) {
    t.ok(!apart.includes(key), message(key) + ' qtimers/native ' + pairs.map(([n, q]) => show(n, q, key)).join('; '));
  }
  return pairs;
}

/* a finished child's result, once it ran on what it was meant to */
function judged(name, impl, r) {
  assert.ok(r && r.json, `${name} ${impl}: no result (code ${r && r.code}, timed out ${r && r.timedOut}): ${r && r.err}`);
  assert.strictEqual(r.installed, impl === 'qtimers', `${name} ${impl}: qtimers ${r.installed ? 'was' : 'was not'} in place`);
  return r.json;
}

function resultOf(t, name, impl) {
  return judged(name, impl, results[`${name} ${impl}`]);
}

module.exports = {
  before: function(done) {
    const paired = [];
    const alone = [];
    for (const name of Object.keys(PROGRAMS)) {
      for (const impl of ['native', 'qtimers']) (PROGRAMS[name][2] === 'alone' ? alone : paired).push(`${name} ${impl}`);
    }
    const start = (run, finished) => {
      const name = run.slice(0, run.lastIndexOf(' '));
      const impl = run.slice(run.lastIndexOf(' ') + 1);
      const [file, args] = PROGRAMS[name];
      child.spawn(process.execPath, [path.join(FIXTURES, file), impl].concat(args), 30000, (r) => {
        r.json = child.lastJson(r.out);
        results[run] = r;
        finished();
      });
    };
    child.twoAtATime(paired, start, () => {
      let next = 0;
      const one = () => (next < alone.length ? start(alone[next++], one) : settleTight(done));
      one();
    });
  },

  'never early: a timer armed after 40 ms of work fires no sooner than its delay, wherever it is armed': function(t) {
    for (const impl of ['native', 'qtimers']) {
      for (const run of ['not-early 1', 'not-early 2']) {
        const { delay, elapsed } = resultOf(t, run, impl);
        t.equal(Object.keys(elapsed).length, 11, `${impl}: every place measured`);
        for (const place of Object.keys(elapsed)) {
          const allowed = delay - 1 - (place === PERIOD_PLACE ? READ_BEFORE_CALLBACK_MS : 0);
          t.ok(elapsed[place] >= allowed, `${impl}, ${place}: fired ${elapsed[place].toFixed(2)} ms after a ${delay} ms arming`);
        }
      }
    }
    t.done();
  },

  'never later than native: the median lateness over those places is within 3 ms of native\'s': function(t) {
    // per place, the smaller lateness of two runs (a load spike hits one run, not both)
    const lateness = {};
    for (const impl of ['native', 'qtimers']) {
      const a = resultOf(t, 'not-early 1', impl);
      const b = resultOf(t, 'not-early 2', impl);
      lateness[impl] = Object.keys(a.elapsed).map((p) => Math.min(a.elapsed[p], b.elapsed[p]) - a.delay);
    }
    const n = median(lateness.native);
    const q = median(lateness.qtimers);
    t.ok(q <= n + 3, `median lateness: qtimers ${q.toFixed(2)} ms, native ${n.toFixed(2)} ms`);
    t.done();
  },

  'an interval keeps its period whatever its callback takes, as native': function(t) {
    for (const work of ['0', '30', '60']) {
      const n = resultOf(t, `periods ${work}`, 'native');
      const q = resultOf(t, `periods ${work}`, 'qtimers');
      // the 10th percentile: these children run one after the other, and a load average of 9-14
      // on two cores moved their medians apart by 6-8 ms; load only lengthens a period.  Node 18
      // counts a period from its batch's start, so under load its own periods come out short
      // (p10 33.3 ms in a CI run): qtimers' are compared with native's or the nominal 40 ms,
      // whichever is longer, and are never shorter than 39 ms
      const show = `40 ms interval working ${work} ms: period p10 qtimers ${q.low.toFixed(2)} ms (median ${q.median.toFixed(2)}), native ${n.low.toFixed(2)} ms (median ${n.median.toFixed(2)})`;
      t.ok(q.low >= 39, 'not early: ' + show);
      t.ok(q.low <= Math.max(n.low, 40) + 5 && q.low >= Math.min(n.low, 40) - 5, show);
    }
    t.done();
  },

  'every delay, junk ones too, takes as long as natively (within 0.5 ms) and warns as natively': function(t) {
    const pairs = assertTight(t, 'lateness', (kind) => `setTimeout(f, ${kind}): elapsed ms`);
    t.equal(TIGHT.lateness.keys(pairs[0][0]).length, 19, 'every delay measured');
    const warned = pairs[0][0].warnings;
    for (const [n, q] of pairs) {
      t.deepEqual(n.warnings, warned, 'natively, the same warnings in each run');
      t.deepEqual(q.warnings, warned, 'qtimers: the same warnings as natively, as often');
    }
    // the fixture must provoke warnings, or the comparison proves nothing (Node 24 also warns of NaN and negatives)
    t.ok(Object.keys(warned).some((w) => /^TimeoutOverflowWarning: 2147483648 /.test(w)), 'natively, 2^31 warns: ' + JSON.stringify(warned));
    t.done();
  },

  'a 5 ms interval\'s period over 100 periods is native\'s within 0.5 ms': function(t) {
    const pairs = assertTight(t, 'interval 5 ms', () => 'period ms');
    for (const [, q] of pairs) t.ok(q.low >= 4, `not early: ${q.low.toFixed(2)} ms`);
    t.done();
  },

  'a timeout due while a callback ran waits for the millisecond after the last clock read, as natively': function(t) {
    const n = resultOf(t, 'wake', 'native');
    const q = resultOf(t, 'wake', 'qtimers');
    const share = (r, kind) => r.counts[kind].soon / r.counts[kind].valid;
    for (const kind of Object.keys(n.counts)) {
      for (const r of [n, q]) t.ok(r.counts[kind].valid >= r.trials / 2, `${kind}: ${r.counts[kind].valid} of ${r.trials} trials valid`);
      // a build that runs them in the millisecond of the last read does so in 29-30 of 30
      t.ok(Math.abs(share(q, kind) - share(n, kind)) <= WAKE_SHARE_MARGIN,
        `${kind}: run in the millisecond crossed into, qtimers ${q.counts[kind].soon} of ${q.counts[kind].valid}, native ${n.counts[kind].soon} of ${n.counts[kind].valid}`);
    }
    // the fixture tells the cases apart natively, or the comparison proves nothing
    t.ok(share(n, 'lone') - share(n, 'armed') >= 0.5 && share(n, 'lone') - share(n, 'interval') >= 0.5 &&
      share(n, 'read') - share(n, 'armed') >= 0.5,
      'natively, a read after the crossing delays the wake: ' + JSON.stringify(n.counts));
    t.done();
  },

  'a chain of 5 ms immediates delays timeouts and socket data no more than natively': function(t) {
    // each figure: the better of two runs (a load spike on a shared machine hits one, not both)
    const best = (impl) => {
      const a = resultOf(t, 'starvation 1', impl);
      const b = resultOf(t, 'starvation 2', impl);
      const out = {};
      for (const what of ['timeouts', 'messages']) {
        t.ok(a[what].p50 !== undefined && b[what].p50 !== undefined, `${impl}: ${what} measured`);
        out[what] = { p50: Math.min(a[what].p50, b[what].p50), p99: Math.min(a[what].p99, b[what].p99) };
      }
      return out;
    };
    const n = best('native');
    const q = best('qtimers');
    const show = (what, k) => `${what} ${k}: qtimers ${q[what][k].toFixed(1)} ms, native ${n[what][k].toFixed(1)} ms`;
    // the issue's bounds (p50 within 2 ms, p99 within 5 ms of native's) plus room for a loaded
    // machine, whose p99 moves by tens of ms from run to run; starving gave 30 and 55 ms
    t.ok(q.timeouts.p50 <= n.timeouts.p50 + 4, show('timeouts', 'p50'));
    t.ok(q.timeouts.p99 <= 2 * n.timeouts.p99 + 10, show('timeouts', 'p99'));
    t.ok(q.messages.p50 <= n.messages.p50 + 4, show('messages', 'p50'));
    t.ok(q.messages.p99 <= 2 * n.messages.p99 + 10, show('messages', 'p99'));
    t.done();
  },
};
