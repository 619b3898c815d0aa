/*
 * Memory bounds, measured by test/memory/bounds.js in child processes with --expose-gc, at
 * smaller sizes than the full run (node --expose-gc test/memory/bounds.js prints those):
 *   - 1M set/clear cycles (timeouts of many delays, intervals, immediates, with and without
 *     arguments) with 20k timeouts pending: the heap after gc stays within 2x of that live set
 *   - 1M refresh() calls on 20k pending 60 s timeouts: within 2x of the live set
 *   - a cleared timeout's, interval's or immediate's callback and arguments (and an immediate's
 *     once it has run) are garbage at once, while the program still holds the handle
 *   - 200k pending timeouts take at most half the heap Node's take (the same script run with and
 *     without `-r index.js`, and with qtimers required on its first line)
 * Each bound is also shown to fail where it should: with a deliberate leak, and with callbacks
 * and arguments deliberately kept alive.  The children run in before(), which qnit does
 * not time out.
 */
'use strict';

const path = require('path');
const child = require('../helpers/child');

const BOUNDS = path.join(__dirname, '..', 'memory', 'bounds.js');

function bounds(args, done) {
  child.spawn(process.execPath, ['--expose-gc', BOUNDS, '--small', '--json'].concat(args), 10 * 60 * 1000, (r) => {
    if (r.code !== 0) return done(new Error(`bounds.js ${args.join(' ')} exited with ${r.code}: ${r.err}`));
    const figures = child.lastJson(r.out);
    if (figures === null) return done(new Error(`bounds.js ${args.join(' ')}: no figures: ${r.out} ${r.err}`));
    done(null, figures);
  });
}

const RUNS = {
  setclear: ['--section', 'setclear'],
  leak: ['--section', 'setclear', '--leak', '--cycles', '200000'],
  refresh: ['--section', 'refresh'],
  unreachable: ['--section', 'unreachable'],
  unreachableRetained: ['--section', 'unreachable', '--retain'],
  pending: ['--section', 'pending'],
};

const results = {};
const MB = (b) => (b / 1048576).toFixed(1) + ' MB';

module.exports = {
  before: function (done) {
    // heap figures do not depend on timing, so two may run at once
    child.twoAtATime(Object.keys(RUNS), (name, finished) => {
      bounds(RUNS[name], (err, r) => {
        results[name] = err || r;
        finished();
      });
    }, done);
  },

  'set/clear cycles keep the heap within 2x of the live set': function (t) {
    const r = results.setclear;
    if (r instanceof Error) throw r;
    t.equal(r.cycles, 1e6);
    t.ok(r.checkpoints.length >= 5, 'measured along the way');
    t.ok(r.ratio <= 2, `live set ${MB(r.liveHeap)}, largest heap after gc ${MB(r.worstHeap)} = ${r.ratio.toFixed(2)}x`);
    t.done();
  },

  'the set/clear bound fails when cleared timers are kept': function (t) {
    const r = results.leak;
    if (r instanceof Error) throw r;
    t.ok(r.leak && r.ratio > 2, `with a leak: ${r.ratio.toFixed(2)}x`);
    t.done();
  },

  'refresh() calls keep the heap within 2x of the live set': function (t) {
    const r = results.refresh;
    if (r instanceof Error) throw r;
    t.equal(r.calls, 1e6);
    t.ok(r.ratio <= 2, `live set ${MB(r.liveHeap)}, largest heap after gc ${MB(r.worstHeap)} = ${r.ratio.toFixed(2)}x`);
    t.done();
  },

  'a cleared timer\'s callback, arguments and store are unreachable at once': function (t) {
    const r = results.unreachable;
    if (r instanceof Error) throw r;
    const cases = Object.keys(r.results).filter((k) => typeof r.results[k] === 'object');
    t.ok(cases.length >= 6, 'timeout, interval, immediate, ran immediate, with and without stores');
    for (const k of cases) {
      t.ok(r.results[k].callbackCollected, k + ': callback collected');
      t.ok(r.results[k].argsCollected, k + ': arguments collected');
    }
    const withStore = cases.filter((k) => 'storeCollected' in r.results[k]);
    t.ok(withStore.length >= 2, 'the cases with a store check it too');
    for (const k of withStore) t.ok(r.results[k].storeCollected, k + ': store collected');
    t.done();
  },

  'the reachability check can tell: callbacks and arguments kept alive are reported': function (t) {
    const r = results.unreachableRetained;
    if (r instanceof Error) throw r;
    t.ok(r.retain && r.retained > 0, 'kept on purpose');
    for (const k of Object.keys(r.results).filter((x) => typeof r.results[x] === 'object')) {
      t.ok(!r.results[k].callbackCollected && !r.results[k].argsCollected, k + ': reported reachable');
      if ('storeCollected' in r.results[k]) t.ok(!r.results[k].storeCollected, k + ': store reported reachable');
    }
    t.done();
  },

  'pending timers take at most half the heap of Node\'s, preloaded or required on the first line': function (t) {
    const r = results.pending;
    if (r instanceof Error) throw r;
    t.equal(r.n, 200e3);
    t.ok(r.timers.native > 50, `native ${r.timers.native.toFixed(1)} bytes a timer`);
    t.ok(r.ratio <= 0.5, `qtimers ${r.timers.qtimers.toFixed(1)} bytes a timer, native ${r.timers.native.toFixed(1)}: ${r.ratio.toFixed(3)}`);
    t.ok(r.requiredRatio <= 0.5, `required on the first line: qtimers ${r.timers.required.toFixed(1)} bytes a timer, native ` +
      `${r.timers.native.toFixed(1)}: ${r.requiredRatio.toFixed(3)}`);
    t.done();
  },
};
