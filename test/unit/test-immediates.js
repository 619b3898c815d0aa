'use strict';
// lib/immediates.js through the public functions (qtimers/standalone): FIFO order, clearing,
// the ticks and microtasks between callbacks, the queue space a set/clear loop holds, and which
// turn each callback runs in under each maxTickDepth / maxTurnMs.

const path = require('path');
const { performance } = require('perf_hooks');
const qt = require('../../lib/standalone');
const { holdings } = require('../../lib/stats');
const child = require('../helpers/child');

const DEFAULT_TURN_MS = 0.05;
const BATCHES = path.join(__dirname, '..', 'fixtures', 'immediates', 'batches.js');
const ONE_PER_TURN = path.join(__dirname, '..', 'fixtures', 'immediates', 'one-per-turn.js');

const nativeSetImmediate = require('timers').setImmediate;

/*
 * Runs program(q, n, log, done) twice, first with q = Node's setImmediate (the control), then
 * with q = qtimers'; n is always Node's.  callback(nativeLog, qtimersLog) once both finished.
 */
function bothWays(program, callback) {
  const run = (q, next) => {
    const log = [];
    program(q, nativeSetImmediate, log, () => next(log));
  };
  run(nativeSetImmediate, (nativeLog) => run(qt.setImmediate, (qLog) => callback(nativeLog, qLog)));
}

/* an immediate queued by an immediate waits for the next turn, with the native ones queued then */
function expectNodesRule(t) {
  bothWays((q, n, log, done) => {
    q(() => {
      log.push('a');
      q(() => log.push('a-child'));
      n(() => log.push('native'));
    });
    q(() => log.push('b'));
    setTimeout(done, 10);
  }, (nativeLog, qLog) => {
    t.deepEqual(nativeLog, ['a', 'b', 'a-child', 'native'], 'the control');
    t.deepEqual(qLog, nativeLog);
    t.done();
  });
}

// A program that queues, from callbacks longer than a young turn (so what they queue waits for
// the next turn, natively and with qtimers alike), one immediate of the global setImmediate and
// one of the setImmediate it found before qtimers was required (Node's, as a module loaded
// first would keep it), in both orders, from the callback itself and from a promise job after
// it; it prints the order they ran in.  Run natively, both are Node's.
const INTERLEAVED_PROGRAM = `
const nodeSetImmediate = setImmediate;
if (process.env.WITH_QTIMERS) require(ROOT);
const { performance } = require('perf_hooks');
const order = [];
function spin() { const end = performance.now() + 0.3; while (performance.now() < end); }
let n = 0;
function step(tag) {
  order.push(tag);
  spin();
  const k = ++n;
  if (k > 60) return;
  const ours = () => setImmediate(step, 'global ' + k);
  const nodes = () => nodeSetImmediate(() => order.push('node ' + k));
  if (k % 4 === 0) { ours(); nodes(); }
  else if (k % 4 === 1) { nodes(); ours(); }
  else if (k % 4 === 2) Promise.resolve().then(() => { ours(); nodes(); });
  else Promise.resolve().then(() => { nodes(); ours(); });
}
setImmediate(step, 'global 0');
setTimeout(() => console.log(JSON.stringify(order)), 500);
`;

module.exports = {
  'setImmediate': {
    'runs in FIFO order with this = its handle and the arguments given': function(t) {
      const got = [];
      const handles = [];
      for (let i = 0; i < 7; i++) {
        const args = [];
        for (let k = 0; k < i; k++) args.push(k);
        handles.push(qt.setImmediate(function() { got.push([this, Array.from(arguments)]); }, ...args));
      }
      qt.setImmediate(() => {
        t.equal(got.length, 7);
        for (let i = 0; i < 7; i++) {
          t.strictEqual(got[i][0], handles[i]);
          t.deepEqual(got[i][1], Array.from({ length: i }, (_, k) => k));
        }
        t.done();
      });
    },

    'clearImmediate stops it, also from an earlier callback in the same turn': function(t) {
      let b;
      qt.setImmediate(() => qt.clearImmediate(b));
      b = qt.setImmediate(() => t.fail('cleared immediate ran'));
      const c = qt.setImmediate(() => t.fail('cleared immediate ran'));
      qt.clearImmediate(c);
      // what Node leaves there on this Node (null; undefined from Node 24 on)
      const natural = nativeSetImmediate(() => {});
      require('timers').clearImmediate(natural);
      t.strictEqual(c._onImmediate, natural._onImmediate);
      t.ok(!c._onImmediate, 'the callback is let go');
      qt.setImmediate(() => t.done());
    },

    'the nextTick and microtask queues drain between two callbacks': function(t) {
      const log = [];
      qt.setImmediate(() => {
        log.push('a');
        process.nextTick(() => log.push('a-tick'));
        Promise.resolve().then(() => log.push('a-promise'));
      });
      qt.setImmediate(() => log.push('b'));
      qt.setTimeout(() => {
        log.push('t1');
        process.nextTick(() => log.push('t1-tick'));
        Promise.resolve().then(() => log.push('t1-promise'));
      }, 1);
      qt.setTimeout(() => log.push('t2'), 1);
      qt.setTimeout(() => {
        // whether the timers' turn comes before the immediates' depends on when the loop wakes
        t.deepEqual(log.filter((e) => e[0] !== 't'), ['a', 'a-tick', 'a-promise', 'b']);
        t.deepEqual(log.filter((e) => e[0] === 't'), ['t1', 't1-tick', 't1-promise', 't2']);
        t.done();
      }, 10);
    },
  },

  'an immediate queued when the turn cannot run it any more takes its place among Node\'s as natively': function(t) {
    const native = child.runJson(INTERLEAVED_PROGRAM, { qtimers: false, timeout: 30000 });
    const ours = child.runJson(INTERLEAVED_PROGRAM, { qtimers: false, expect: 'qtimers', env: { WITH_QTIMERS: '1' }, timeout: 30000 });
    t.equal(native.status, 0, native.stderr);
    t.equal(ours.status, 0, ours.stderr);
    t.equal(native.json.length, 121, 'every callback ran natively');
    t.deepEqual(ours.json, native.json);
    t.done();
  },

  // Each program queues qtimers' and native immediates in turn; under every maxTickDepth the
  // ones queued outside an immediate's callback, and under 0 (Node's rule) all of them, must run
  // in the order Node runs the same program with native immediates only.
  'among native immediates': (() => {
    const programs = {
      'a native one queued between two': (q, n, log, done) => {
        q(() => log.push('A'));
        n(() => log.push('M'));
        q(() => log.push('B'));
        q(() => log.push('C'));
        setTimeout(done, 5);
      },
      'several, with a clear between': (q, n, log, done) => {
        q(() => log.push('A'));
        q(() => log.push('B'));
        n(() => log.push('M1'));
        const c = q(() => log.push('C'));
        n(() => log.push('M2'));
        clearImmediate(c);
        q(() => log.push('D'));
        setTimeout(done, 5);
      },
      'from a timeout\'s callback': (q, n, log, done) => {
        setTimeout(() => {
          q(() => log.push('A'));
          n(() => log.push('M'));
          q(() => log.push('B'));
          setTimeout(done, 5);
        }, 1);
      },
      'a native one\'s callback queues while a driver waits later in the turn': (q, n, log, done) => {
        n(() => { log.push('M'); q(() => log.push('X')); n(() => log.push('M2')); });
        q(() => log.push('B'));
        setTimeout(done, 5);
      },
    };
    const inTurn = {
      'queued by a carried immediate': (q, n, log, done) => {
        q(() => {
          log.push('P');
          q(() => log.push('A'));
          n(() => log.push('M'));
          q(() => { log.push('B'); q(() => log.push('B-child')); n(() => log.push('M-after')); });
          n(() => log.push('M2'));
          q(() => log.push('C'));
        });
        setTimeout(done, 5);
      },
      'queued while the turn has more to run': (q, n, log, done) => {
        q(() => { log.push('P1'); q(() => log.push('X')); n(() => log.push('M')); q(() => log.push('Y')); });
        q(() => { log.push('P2'); q(() => log.push('Z')); });
        setTimeout(done, 5);
      },
    };
    const group = {
      tearDown: function(cb) { qt.setImmediate.maxTickDepth = -1000; cb(); },
    };
    const check = (program, depth) => function(t) {
      if (depth !== undefined) qt.setImmediate.maxTickDepth = depth;
      bothWays(program, (nativeLog, qLog) => {
        t.ok(nativeLog.length > 2, 'the control ran: ' + nativeLog);
        t.deepEqual(qLog, nativeLog);
        t.done();
      });
    };
    for (const name of Object.keys(programs)) {
      group[name + ', the defaults'] = check(programs[name]);
      group[name + ', maxTickDepth 0'] = check(programs[name], 0);
    }
    for (const name of Object.keys(inTurn)) group[name + ', maxTickDepth 0'] = check(inTurn[name], 0);
    return group;
  })(),

  // V8 (Node 18, 20 and 26) wakes a helper thread for a young-generation collection when two
  // or more old pages point into the young generation; Node's immediate list is one, and
  // qtimers' queue holding the next batch's immediate made a second: 1460-1650 voluntary
  // context switches against native's 80-145 (Node 20).  Medians of three runs each.
  'a program that queues one immediate per turn wakes V8\'s collector threads no more than natively': function(t) {
    const runs = { native: [], qtimers: [] };
    for (let i = 0; i < 3; i++) {
      for (const mode of ['native', 'qtimers']) {
        const res = child.runFile(ONE_PER_TURN, { qtimers: mode === 'qtimers', timeout: 60000 });
        t.equal(res.status, 0, res.stderr);
        runs[mode].push(JSON.parse(res.stdout.trim().split('\n').pop()).voluntary);
      }
    }
    const median = (list) => list.slice().sort((a, b) => a - b)[1];
    const native = median(runs.native);
    const ours = median(runs.qtimers);
    t.ok(ours <= 3 * native + 300, `voluntary context switches: qtimers ${runs.qtimers}, native ${runs.native}`);
    t.done();
  },

  'clearing immediates older-first in a synchronous loop holds no queue space': function(t) {
    const before = holdings().immediates;
    for (let k = 0; k < 5000; k++) {
      const a = qt.setImmediate(() => t.fail('ran'));
      const b = qt.setImmediate(() => t.fail('ran'));
      qt.clearImmediate(a);
      qt.clearImmediate(b);
    }
    t.equal(holdings().immediates, before);
    qt.setImmediate(() => t.done());
  },

  'maxTickDepth': {
    // A native immediate queued by the first callback tells which turn a callback queued by
    // that first callback ran in: before the native one = the same turn.  The time-bound tests
    // queue it before anything else: the next turn's first immediate is queued when the turn
    // can no longer run it (at the call, as Node queues it), so it would run before a native
    // one queued after it, as natively.
    // The count tests turn the time bound off (a loaded machine could end a turn early).
    setUp: function(done) { qt.setImmediate.maxTurnMs = Infinity; done(); },
    tearDown: function(done) { qt.setImmediate.maxTickDepth = -1000; qt.setImmediate.maxTurnMs = DEFAULT_TURN_MS; done(); },

    'the defaults, in a fresh process: new ones run in the turn while it is younger than 0.05 ms, up to 1000': function(t) {
      // what a turn runs of the immediates queued in it, before a native one queued first:
      // untouched knobs, then only the time bound lifted to see the count bound
      const res = child.runJson(`
        const qt = require(ROOT + '/lib/standalone');
        const spin = (ms) => { const end = performance.now() + ms; while (performance.now() < end); };
        // how many of a chain of callbacks working \`ms\` run before the native immediate
        const chain = (ms, done) => {
          const log = [];
          let depth = 0;
          const link = () => { spin(ms); log.push('c'); if (++depth < 20) qt.setImmediate(link); };
          qt.setImmediate(() => { setImmediate(() => log.push('native')); link(); });
          setTimeout(() => done(log.indexOf('native')), 50);
        };
        const out = {};
        let tries = 0;
        const quick = () => chain(0, (n) => {
          // a stall of a loaded machine (or a first call's lazy compile) ends a 0.05 ms turn
          // early: a chain that ran one link is tried again, up to 10 times
          if (n <= 1 && ++tries < 10) return quick();
          out.quick = n > 1;
          chain(0.1, (m) => {
            out.tenthOfMs = m;
            qt.setImmediate.maxTurnMs = Infinity;
            let ran = 0;
            qt.setImmediate(() => {
              setImmediate(() => { out.fanBeforeNative = ran; console.log(JSON.stringify(out)); });
              for (let i = 0; i < 1500; i++) qt.setImmediate(() => { ran++; });
            });
          });
        });
        quick();
      `, { qtimers: false });
      t.equal(res.status, 0, res.stderr);
      t.deepEqual(res.json, { quick: true, tenthOfMs: 1, fanBeforeNative: 1000 },
        'quick ones: several per turn; 0.1 ms ones: one per turn; without the time bound: 1000 new ones per turn');
      t.done();
    },

    'a young turn runs new immediates; one older than maxTurnMs leaves them to the next turn': function(t) {
      qt.setImmediate.maxTurnMs = 1;
      // how many of a chain run before a native immediate queued by the chain's first callback
      const chainBeforeNative = (work, done) => {
        const log = [];
        let depth = 0;
        function chain() {
          const end = performance.now() + work;
          while (performance.now() < end);
          log.push('c');
          if (++depth < 20) qt.setImmediate(chain);
        }
        qt.setImmediate(() => { nativeSetImmediate(() => log.push('native')); chain(); });
        qt.setTimeout(() => done(log.indexOf('native')), 100);
      };
      // short callbacks: several run in the first turn (three tries: a 1 ms stall of a loaded
      // machine right after the first one could end one turn early)
      let tries = 0;
      const short = () => chainBeforeNative(0, (n) => {
        if (n <= 1 && ++tries < 3) return short();
        t.ok(n > 1, `${n} of a chain of quick immediates ran in the first turn`);
        // 3 ms callbacks: the turn is old after the first, so one per turn, as natively
        chainBeforeNative(3, (m) => {
          t.equal(m, 1, 'one 3 ms immediate per turn');
          t.done();
        });
      });
      short();
    },

    'with the default bound, a callback of 0.3 ms ends the turn: what it queues runs next turn': function(t) {
      qt.setImmediate.maxTurnMs = DEFAULT_TURN_MS;
      const log = [];
      let depth = 0;
      function chain() {
        const end = performance.now() + 0.3;
        while (performance.now() < end);
        log.push('c');
        if (++depth < 4) qt.setImmediate(chain);
      }
      qt.setImmediate(() => { nativeSetImmediate(() => log.push('native')); chain(); });
      qt.setTimeout(() => { t.deepEqual(log, ['c', 'native', 'c', 'c', 'c']); t.done(); }, 50);
    },

    'after a run of long callbacks, a chain of short ones runs several per turn again': function(t) {
      qt.setImmediate.maxTurnMs = DEFAULT_TURN_MS;
      const spin = (ms) => { const end = performance.now() + ms; while (performance.now() < end); };
      // 0.3 ms callbacks: every turn runs out of time on one, so what they queue is carried
      let tries = 0;
      const attempt = () => {
        const log = [];
        let slow = 0;
        let quick = 0;
        function long() {
          spin(0.3);
          if (++slow < 5) qt.setImmediate(long);
          else qt.setImmediate(short);
        }
        function short() {
          log.push('s');
          if (++quick < 20) qt.setImmediate(short);
          if (quick === 1) nativeSetImmediate(() => log.push('native'));
        }
        qt.setImmediate(long);
        qt.setTimeout(() => {
          const n = log.indexOf('native');
          // a 1 ms stall of a loaded machine at the wrong moment could end one turn early
          if (n <= 1 && ++tries < 3) return attempt();
          t.ok(n > 1, `${n} of a chain of quick immediates ran in its first turn after the long ones`);
          t.done();
        }, 100);
      };
      attempt();
    },

    // V8 posts a scavenge task when the young generation is 80% full, and Node runs it between
    // two loop turns; work that goes on allocating in the same turn makes V8 collect in the
    // middle of it instead (--trace-gc: "allocation failure"), with more of it alive.  With a
    // 1 ms turn, batches of promise jobs started from setImmediate met 67-83 of those where
    // native met 2-56 (Node 18-24), and ran a tenth of native's scavenges as tasks.
    'V8\'s scavenge tasks run between batches started from setImmediate, as natively': function(t) {
      const scavenges = (qtimers) => {
        const res = child.runFile(BATCHES, { qtimers, nodeArgs: ['--trace-gc'], timeout: 60000 });
        t.equal(res.status, 0, res.stderr);
        const lines = res.stdout.split('\n').filter((line) => line.includes('Scavenge'));
        return {
          asTask: lines.filter((line) => / task;/.test(line)).length,
          midWork: lines.filter((line) => line.includes('allocation failure')).length,
          // --trace-gc writes to stdout too, and may collect after the checksum is printed
          checksum: res.stdout.split('\n').filter((line) => line.startsWith('checksum ')).join('\n'),
        };
      };
      const native = scavenges(false);
      const q = scavenges(true);
      // Compared as shares, not counts: V8 sometimes grows the young generation early in a run
      // and then collects half as often, still as tasks (docs/decisions.md, 2026-12-05); the
      // build this guards against ran most of its scavenges in the middle of the work.
      const share = (r) => r.asTask / (r.asTask + r.midWork);
      t.ok(/^checksum -?\d+$/.test(native.checksum), 'the program finished: ' + native.checksum);
      t.equal(q.checksum, native.checksum, 'the same work');
      t.ok(native.asTask + native.midWork > 0, 'the program allocates enough to be collected');
      t.ok(share(q) >= share(native) - 0.2,
        `${q.asTask} of ${q.asTask + q.midWork} scavenges ran as tasks, native ${native.asTask} of ${native.asTask + native.midWork}`);
      t.ok(q.midWork <= 2 * native.midWork + 10, `${q.midWork} in the middle of the work, native ${native.midWork}`);
      t.done();
    },

    'maxTurnMs 0 runs no new immediates in the turn (Node\'s rule)': function(t) {
      qt.setImmediate.maxTurnMs = 0;
      expectNodesRule(t);
    },

    '0 runs exactly the callbacks queued before the turn (Node)': function(t) {
      qt.setImmediate.maxTickDepth = 0;
      expectNodesRule(t);
    },

    '-N runs the queued ones plus up to N new ones': function(t) {
      qt.setImmediate.maxTickDepth = -2;
      const log = [];
      let depth = 0;
      function chain() { log.push('c' + depth); if (++depth < 5) qt.setImmediate(chain); }
      qt.setImmediate(() => { log.push('a'); nativeSetImmediate(() => log.push('native')); });
      qt.setImmediate(chain);
      qt.setTimeout(() => { t.deepEqual(log, ['a', 'c0', 'c1', 'c2', 'native', 'c3', 'c4']); t.done(); }, 10);
    },

    'N > 0 runs up to N callbacks, new ones included': function(t) {
      qt.setImmediate.maxTickDepth = 3;
      const log = [];
      let depth = 0;
      function chain() { log.push('c' + depth); if (++depth < 5) qt.setImmediate(chain); }
      qt.setImmediate(() => { chain(); nativeSetImmediate(() => log.push('native')); });
      qt.setTimeout(() => { t.deepEqual(log, ['c0', 'c1', 'c2', 'native', 'c3', 'c4']); t.done(); }, 10);
    },

    '1 runs one callback per turn': function(t) {
      qt.setImmediate.maxTickDepth = 1;
      const log = [];
      qt.setImmediate(() => { log.push('a'); nativeSetImmediate(() => log.push('native')); });
      qt.setImmediate(() => log.push('b'));
      qt.setTimeout(() => { t.deepEqual(log, ['a', 'native', 'b']); t.done(); }, 10);
    },

    'cleared entries cost no budget': function(t) {
      qt.setImmediate.maxTickDepth = 2;
      const log = [];
      for (let i = 0; i < 50; i++) qt.clearImmediate(qt.setImmediate(() => log.push('cleared')));
      const keep = [qt.setImmediate(() => log.push('x'))];
      for (let i = 0; i < 50; i++) { keep.push(qt.setImmediate(() => log.push('cleared'))); }
      for (let i = 1; i < keep.length; i++) qt.clearImmediate(keep[i]);
      qt.setImmediate(() => { log.push('y'); nativeSetImmediate(() => log.push('native')); });
      qt.setTimeout(() => { t.deepEqual(log, ['x', 'y', 'native']); t.done(); }, 10);
    },

  },
};
