'use strict';
// lib/stats.js: what qtimers holds, counted.  stats() follows the queue, the reference counts,
// the timeout lists and the drivers through a program's life; activeHandles() counts the
// drivers as Node counts native handles (after the section settles them) and a running
// immediate no longer, a running timeout still.  In a fresh process, so that nothing else is
// pending.

const path = require('path');
const { runJson } = require('../helpers/child');
const qt = require('../../lib/standalone');
const stats = require('../../lib/stats');
const { latenessBucket, bucketLow, bucketHigh } = require('../../lib/lateness');
const nodePromises = require('timers/promises');

// Seeded random programs of setTimeout / setInterval / setImmediate with clears, ref / unref,
// refresh, nested scheduling and throwing callbacks, run one after another in one child.  The
// program keeps its own book of what is pending, referenced, run and thrown (from its own calls
// and callbacks, nothing of qtimers'), and with qtimers compares stats() and pending() with it at
// every callback's start and end.  (Natively the same seeds make other programs: what a callback
// does depends on the order callbacks ran in, which timing decides.)
const RANDOM_PROGRAMS = `
  const mode = 'qtimers';
  const T = require(ROOT + '/lib/standalone');
  const seeds = JSON.parse(process.argv[1]);
  let seed = 0;
  function random() {                       // mulberry32
    seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  const pick = (list) => list[Math.floor(random() * list.length)];
  const DELAYS = [0, 1, 2, 3, 5, 8, 13];
  let book, budget, mismatches, checks;
  process.on('uncaughtException', (err) => {
    if (err.message !== 'planned') throw err;
    book.threw[err.kind] += 1;
    finishIfDone();
  });
  const keepAlive = setInterval(() => {}, 1000);   // native: unref'd programs still run to the end
  function check(where) {
    if (mode !== 'qtimers') return;
    checks += 1;
    const s = T.stats();
    const live = [...book.pending];
    const want = {
      immediates: { pending: live.filter((h) => h.kind === 'immediate').length, refed: live.filter((h) => h.kind === 'immediate' && h.ref).length, ran: book.ran.immediate, threw: book.threw.immediate },
      timeouts: { pending: live.filter((h) => h.kind !== 'immediate').length, intervals: live.filter((h) => h.kind === 'interval').length, refed: live.filter((h) => h.kind !== 'immediate' && h.ref).length, ran: book.ran.timeout, threw: book.threw.timeout },
      delays: new Set(live.filter((h) => h.kind !== 'immediate').map((h) => h.delay)).size,
      listed: live.length,
      refedListed: live.filter((h) => h.ref).length,
    };
    const got = {
      immediates: { pending: s.immediates.pending, refed: s.immediates.refed, ran: s.immediates.ran, threw: s.immediates.threw },
      timeouts: { pending: s.timeouts.pending, intervals: s.timeouts.intervals, refed: s.timeouts.refed, ran: s.timeouts.ran, threw: s.timeouts.threw },
      delays: s.timeouts.delays,
      listed: T.pending().length,
      refedListed: T.pending({ refedOnly: true }).length,
    };
    if (JSON.stringify(got) !== JSON.stringify(want) && mismatches.length < 5) mismatches.push({ where, want, got });
  }
  function schedule() {
    if (budget <= 0) return;
    budget -= 1;
    const kind = pick(['timeout', 'timeout', 'interval', 'immediate', 'immediate']);
    const h = { kind, delay: kind === 'immediate' ? 0 : Math.max(1, pick(DELAYS)), ref: true, runs: 0, stopAfter: 1 + Math.floor(random() * 3), handle: null };
    const throws = random() < 0.1;
    const callback = function() {
      if (h.kind !== 'interval') book.pending.delete(h);
      book.ran[h.kind === 'immediate' ? 'immediate' : 'timeout'] += 1;
      h.runs += 1;
      check('start of a callback');
      act();
      if (h.kind === 'interval' && h.runs >= h.stopAfter && book.pending.has(h)) clear(h);
      check('end of a callback');
      if (throws) {
        const err = new Error('planned');
        err.kind = h.kind === 'immediate' ? 'immediate' : 'timeout';
        throw err;
      }
      finishIfDone();
    };
    h.handle = kind === 'immediate' ? T.setImmediate(callback) : kind === 'interval' ? T.setInterval(callback, h.delay) : T.setTimeout(callback, h.delay);
    book.pending.add(h);
  }
  function clear(h) {
    if (h.kind === 'immediate') T.clearImmediate(h.handle);
    else T.clearTimeout(h.handle);
    book.pending.delete(h);
  }
  function act() {
    const n = Math.floor(random() * 3);
    for (let i = 0; i < n; i++) schedule();
    const live = [...book.pending];
    if (live.length === 0) return;
    const h = pick(live);
    const what = random();
    if (what < 0.15) clear(h);
    else if (what < 0.35) { h.ref = !h.ref; if (h.ref) h.handle.ref(); else h.handle.unref(); }
    else if (what < 0.45 && h.kind !== 'immediate') h.handle.refresh();
  }
  let programs = 0;
  const results = [];
  let onDone = null;
  function finishIfDone() {
    if (book.pending.size === 0 && onDone !== null) {
      const done = onDone;
      onDone = null;
      T.setImmediate(done);      // after the current callback (and its throw) is over
    }
  }
  function runProgram() {
    if (programs === seeds.length) {
      clearInterval(keepAlive);
      console.log(JSON.stringify({ results, mismatches, checks }));
      return;
    }
    seed = seeds[programs++];
    book = { pending: new Set(), ran: { immediate: 0, timeout: 0 }, threw: { immediate: 0, timeout: 0 } };
    budget = 40;
    if (mode === 'qtimers') T.stats({ reset: true });
    for (let i = 0; i < 8; i++) schedule();
    act();
    check('after the synchronous start');
    onDone = () => {
      results.push({ ran: book.ran, threw: book.threw });
      runProgram();
    };
    finishIfDone();
  }
  mismatches = [];
  checks = 0;
  runProgram();
`;

module.exports = {
  'holdings() and activeHandles() follow pending, running and finished timers': function(t) {
    const res = runJson(`
      const qt = require(ROOT + '/lib/standalone');
      const { holdings, activeHandles } = require(ROOT + '/lib/stats');
      const out = { idle: holdings() };
      qt.setTimeout(() => {}, 50);
      qt.setTimeout(() => {}, 50).unref();
      const running = qt.setTimeout(() => { out.inTimeout = activeHandles(); }, 20);
      qt.setImmediate(() => { out.inImmediate = activeHandles(); });
      qt.setImmediate(() => {}).unref();
      out.pending = holdings();
      out.unsettled = activeHandles();
      Promise.resolve().then(() => {
        out.settled = activeHandles();
        setTimeout(() => {
          out.done = holdings();
          out.doneActive = activeHandles();
          console.log(JSON.stringify(out));
        }, 100);
      });
    `, { qtimers: false });
    t.strictEqual(res.status, 0, res.stderr);
    const out = res.json;
    t.deepEqual(out.idle, { immediates: 0, refedImmediates: 0, refedTimeouts: 0, timeoutLists: 0, immediateDriver: false, timeoutArmed: false });
    t.deepEqual(out.pending, { immediates: 2, refedImmediates: 1, refedTimeouts: 2, timeoutLists: 2, immediateDriver: true, timeoutArmed: true });
    // the timeout driver is armed (and referenced) at the first timer; the first immediate's
    // carrier and the driver of the second are queued referenced and stay so: all count at once
    t.deepEqual(out.unsettled, { nativeTimeouts: 1, nativeImmediates: 2, refedTimeouts: 2, refedImmediates: 1 });
    t.deepEqual(out.settled, out.unsettled);
    t.deepEqual(out.inImmediate, { nativeTimeouts: 1, nativeImmediates: 0, refedTimeouts: 2, refedImmediates: 0 }, 'a running immediate is no longer counted');
    t.deepEqual(out.inTimeout, { nativeTimeouts: 1, nativeImmediates: 0, refedTimeouts: 2, refedImmediates: 0 }, 'a running timeout still is');
    t.deepEqual(out.done, { immediates: 0, refedImmediates: 0, refedTimeouts: 0, timeoutLists: 0, immediateDriver: false, timeoutArmed: false });
    t.deepEqual(out.doneActive, { nativeTimeouts: 0, nativeImmediates: 0, refedTimeouts: 0, refedImmediates: 0 });
    t.done();
  },

  'stats() and pending() count exactly what seeded random programs leave pending, run and throw': function(t) {
    const seeds = [];
    for (let i = 0; i < 30; i++) seeds.push(1000 + i * 7919);
    const ours = runJson(RANDOM_PROGRAMS, { qtimers: false, args: [JSON.stringify(seeds)], timeout: 30000 });
    t.strictEqual(ours.status, 0, ours.stderr);
    t.ok(ours.json, ours.stdout);
    t.deepEqual(ours.json.mismatches, [], 'seeds ' + seeds.join(','));
    t.ok(ours.json.checks > seeds.length * 40, `checked ${ours.json.checks} times`);
    const totals = ours.json.results.reduce((sum, r) => sum + r.threw.immediate + r.threw.timeout, 0);
    t.ok(totals > 0, 'some callbacks threw');
    t.done();
  },

  'stats().lateness: a timer held up by busy-waiting shows it, against the test\'s own timestamps': function(t) {
    const res = runJson(`
      const qt = require(ROOT + '/lib/standalone');
      const { performance } = require('perf_hooks');
      const BUSY_MS = 60;
      const delays = [5, 10, 20];
      const measured = [];
      const least = [];        // each timer's least lateness: from just after its call to the busy end
      const armedBy = [];
      qt.stats({ reset: true });
      const started = performance.now();
      for (const delay of delays) {
        const t0 = performance.now();
        qt.setTimeout(() => { measured.push(performance.now() - t0 - delay); }, delay);
        armedBy.push(performance.now());
      }
      while (performance.now() - started < BUSY_MS);     // every timer is now late
      const busyEnd = performance.now();
      for (let i = 0; i < delays.length; i++) least.push(busyEnd - armedBy[i] - delays[i]);
      setTimeout(() => {
        console.log(JSON.stringify({ lateness: qt.stats().lateness, measured, least, delays }));
      }, 100);
    `, { qtimers: false });
    t.strictEqual(res.status, 0, res.stderr);
    const { lateness, measured, least, delays } = res.json;
    t.equal(lateness.count, delays.length);
    t.equal(measured.length, delays.length);
    const maxMeasured = Math.max(...measured);
    const meanMeasured = measured.reduce((a, b) => a + b, 0) / measured.length;
    // each timer waited at least from just after its call to the end of the busy loop, less its
    // delay (whole ms: 1 ms of rounding); taken per timer, so a pause of a loaded machine between
    // two calls moves the bound with it
    const show = JSON.stringify({ lateness, least });
    t.ok(lateness.max >= Math.max(...least) - 1, `max: ${show}`);
    t.ok(lateness.max <= maxMeasured + 1, `max ${lateness.max} <= measured ${maxMeasured} + 1`);
    // each one: by the batch's reading, no later than its callback really started
    t.ok(lateness.mean <= meanMeasured + 1, `mean ${lateness.mean} <= measured ${meanMeasured} + 1`);
    t.ok(lateness.mean >= least.reduce((a, b) => a + b, 0) / least.length - 1, `mean: ${show}`);
    t.ok(lateness.p50 <= lateness.p99 && lateness.p99 <= lateness.max, show);
    t.ok(lateness.p50 >= least.slice().sort((a, b) => a - b)[1] - 1 - lateness.p50 / 8, `p50: ${show}`);
    t.done();
  },

  'stats().lateness is each callback\'s own start against its expiry, as the callbacks of a busy drain start natively': function(t) {
    // five timers due at 10 ms, the loop blocked 50 ms, each callback working 10 ms: each one
    // starts later than the one before it, natively and with qtimers
    const program = `
      const { performance } = require('perf_hooks');
      const busy = (ms) => { const end = performance.now() + ms; while (performance.now() < end); };
      const installed = 'exactStart' in setTimeout;
      // as a program that reports its timers' lateness does: measured from the first stats() on
      if (installed) require(ROOT).stats({ reset: true });
      const late = [];
      const starts = [];
      for (let i = 0; i < 5; i++) {
        const armed = performance.now();
        setTimeout(() => {
          starts.push(performance.now());
          late.push(starts[i] - armed - 10);
          busy(10);
          if (starts.length < 5) return;
          const lateness = installed ? require(ROOT).stats().lateness : null;
          console.log(JSON.stringify({ installed, late, starts, lateness }));
        }, 10);
      }
      busy(50);
    `;
    const native = runJson(program, { qtimers: false });
    t.strictEqual(native.status, 0, native.stderr);
    t.strictEqual(native.json.installed, false);
    // stats() says what the callbacks measured, each within 1 ms (whole milliseconds); a
    // preemption between qtimers' reading and the callback's own can add to what it measures,
    // so up to three runs are made for all to agree (a wrong summary every time is a bug)
    const agree = (json) => {
      const late = json.late.slice().sort((a, b) => a - b);
      const { lateness } = json;
      const mean = late.reduce((a, b) => a + b, 0) / late.length;
      const p50 = latenessBucket(Math.round(late[2]));
      return [
        [lateness.count === 5, `count ${lateness.count}`],
        [Math.abs(lateness.max - late[4]) <= 1, `max ${lateness.max}, measured ${late[4]}`],
        [Math.abs(lateness.mean - mean) <= 1, `mean ${lateness.mean}, measured ${mean}`],
        // the median lies in the histogram bucket of the third start (at most 1/8 wide)
        [lateness.p50 >= bucketLow(p50) - 1 && lateness.p50 <= bucketHigh(p50) + 1, `p50 ${lateness.p50}, measured ${late[2]}`],
      ];
    };
    let ours;
    for (let run = 0; run < 3; run++) {
      ours = runJson(program);
      t.strictEqual(ours.status, 0, ours.stderr);
      t.strictEqual(ours.json.installed, true, 'qtimers is in place');
      if (agree(ours.json).every(([ok]) => ok)) break;
    }
    for (const [ok, what] of agree(ours.json)) t.ok(ok, what);
    // natively each callback starts 10 ms or more after the one before it; so with qtimers
    for (const { starts } of [native.json, ours.json]) {
      for (let i = 1; i < starts.length; i++) t.ok(starts[i] - starts[i - 1] >= 10, JSON.stringify(starts));
    }
    t.done();
  },

  'stats({ reset: true }) returns the counts, then starts them over; pending stays': function(t) {
    const res = runJson(`
      const qt = require(ROOT + '/lib/standalone');
      qt.setTimeout(() => {}, 1);
      qt.setImmediate(() => {});
      const keep = qt.setTimeout(() => {}, 60000);
      setTimeout(() => {
        const first = qt.stats({ reset: true });
        const second = qt.stats();
        qt.clearTimeout(keep);
        console.log(JSON.stringify({ first, second }));
      }, 50);
    `, { qtimers: false });
    t.strictEqual(res.status, 0, res.stderr);
    const { first, second } = res.json;
    t.equal(first.timeouts.ran, 1);
    t.equal(first.immediates.ran, 1);
    t.ok(first.timeouts.drains >= 1 && first.immediates.drains === 1, JSON.stringify(first));
    t.equal(first.lateness.count, 1);
    t.deepEqual(second.lateness, { count: 0, mean: 0, p50: 0, p99: 0, max: 0 });
    t.deepEqual([second.timeouts.ran, second.timeouts.drains, second.immediates.ran, second.immediates.drains], [0, 0, 0, 0]);
    t.deepEqual([first.timeouts.pending, second.timeouts.pending], [1, 1]);
    t.deepEqual(second.timeouts.largestLists, [{ delay: 60000, pending: 1 }]);
    t.done();
  },

  'the lateness histogram: every value lies in its bucket, buckets in order, at most 1/8 wide': function(t) {
    let last = -1;
    for (let ms = 0; ms < 2 ** 31; ms = ms < 4096 ? ms + 1 : Math.floor(ms * 1.01) + 1) {
      const i = latenessBucket(ms);
      if (!(bucketLow(i) <= ms && ms <= bucketHigh(i))) {
        t.fail(`${ms} ms: bucket ${i} holds ${bucketLow(i)}..${bucketHigh(i)}`);
        break;
      }
      if (i < last) { t.fail(`${ms} ms: bucket ${i} after ${last}`); break; }
      last = i;
      if ((bucketHigh(i) - bucketLow(i)) > bucketLow(i) / 8) { t.fail(`bucket ${i} too wide`); break; }
    }
    t.ok(last > 200, 'the buckets reach 2^31 ms');
    t.done();
  },

  'the lateness histogram: read() gives the count, sum and largest of what was filed, exact and wide values mixed': function(t) {
    const { newHistogram, file, read, reset } = require('../../lib/lateness');
    const h = newHistogram();
    t.deepEqual([read(h).filed, read(h).sum, read(h).max], [0, 0, 0]);
    const cases = [[3, 0, 0, 1, 15], [7, 7, 2], [16, 3], [0, 250, 15, 100000], [2 ** 31 + 5, 1]];
    let all = [];
    for (const values of cases) {
      for (const ms of values) file(h, ms);
      all = all.concat(values);
      const got = read(h);
      const want = [all.length, all.reduce((a, b) => a + b, 0), Math.max(...all)];
      t.deepEqual([got.filed, got.sum, got.max], want, `after ${JSON.stringify(all)}`);
      t.equal(got.buckets.reduce((a, b) => a + b, 0), all.length);
    }
    reset(h);
    t.deepEqual([read(h).filed, read(h).sum, read(h).max], [0, 0, 0]);
    t.done();
  },

  'pending() lists kind, delay, due, ref and callback, sorted by due time; refedOnly': function(t) {
    const res = runJson(`
      const qt = require(ROOT + '/lib/standalone');
      qt.setTimeout(function late() {}, 500);
      qt.setInterval(function every() {}, 100).unref();
      qt.setTimeout(() => {}, 50);
      qt.setImmediate(function soon() {}).unref();
      qt.setImmediate(function sooner() {});
      const cleared = qt.setTimeout(function gone() {}, 10);
      qt.clearTimeout(cleared);
      const all = qt.pending();
      const refed = qt.pending({ refedOnly: true });
      console.log(JSON.stringify({ all, refed }));
      process.exit(0);
    `, { qtimers: false });
    t.strictEqual(res.status, 0, res.stderr);
    const { all, refed } = res.json;
    t.deepEqual(all.map((h) => [h.kind, h.delay, h.ref, h.callback, h.origin]), [
      ['immediate', 0, false, 'soon', null],
      ['immediate', 0, true, 'sooner', null],
      ['timeout', 50, true, '(anonymous)', null],
      ['interval', 100, false, 'every', null],
      ['timeout', 500, true, 'late', null],
    ]);
    for (const h of all.slice(2)) t.ok(h.msUntilDue <= h.delay && h.msUntilDue >= h.delay - 1000, JSON.stringify(h));
    t.deepEqual(refed.map((h) => h.callback), ['sooner', '(anonymous)', 'late']);
    t.done();
  },

  'trackOrigins(true): each handle made from then on points at the line that made it': function(t) {
    const origin = (handle) => stats.pending().find((h) => h.callback === handle.name);
    const here = () => new Error().stack.split('\n')[2].match(/:(\d+):\d+\)?$/)[1];
    const file = path.basename(__filename);
    try {
      const untracked = qt.setTimeout(function untrackedOrigin() {}, 60000);
      qt.trackOrigins(true);
      const a = qt.setTimeout(function originOfTimeout() {}, 60000); const lineA = here();
      const b = qt.setInterval(function originOfInterval() {}, 60000); const lineB = here();
      const c = qt.setImmediate(function originOfImmediate() {}); const lineC = here();
      qt.trackOrigins(false);
      const d = qt.setTimeout(function originOfLater() {}, 60000);
      for (const [fn, line] of [[function originOfTimeout() {}, lineA], [function originOfInterval() {}, lineB], [function originOfImmediate() {}, lineC]]) {
        const h = origin(fn);
        t.ok(h && h.origin.includes(`${file}:${line}:`), `${fn.name}: ${h && h.origin} at line ${line}`);
        t.ok(h && !h.stack.includes(path.join(__dirname, '..', '..', 'lib')), 'no frame of qtimers\' own');
      }
      t.equal(origin(function untrackedOrigin() {}).origin, null, 'made before trackOrigins(true)');
      t.equal(origin(function originOfLater() {}).origin, null, 'made after trackOrigins(false)');
      qt.clearTimeout(untracked); qt.clearTimeout(a); qt.clearInterval(b); qt.clearImmediate(c); qt.clearTimeout(d);
    } finally {
      qt.trackOrigins(false);
    }
    t.done();
  },

  'trackOrigins(true): a timer of qtimers/promises points at the program\'s line, not qtimers\'': function(t) {
    const res = runJson(`
      const qt = require(ROOT + '/lib/standalone');
      const promises = require(ROOT + '/lib/promises');
      qt.trackOrigins(true);
      const ac = new AbortController();
      promises.setTimeout(60000, null, { signal: ac.signal }).catch(() => {});   // LINE
      const origin = qt.pending()[0].origin;
      ac.abort();
      console.log(JSON.stringify({ origin }));
    `, { qtimers: false });
    t.strictEqual(res.status, 0, res.stderr);
    // the helper's first line is ROOT's: LINE is the snippet's 6th line, the file's 7th
    t.ok(/^\[eval\]:7:\d+$/.test(res.json.origin), res.json.origin);
    t.done();
  },

  'stats(), pending() and trackOrigins() refuse bad arguments with Node\'s errors': function(t) {
    const nodeError = (run) => run().then(() => null, (err) => err);
    Promise.all([
      // Node's own wording for the same mistakes: an options argument that is not an object,
      // and a boolean option that is not a boolean
      nodeError(() => nodePromises.setTimeout(1, undefined, 5)),
      nodeError(() => nodePromises.setTimeout(1, undefined, { ref: 'yes' })),
    ]).then(([notObject, notBoolean]) => {
      const ours = (fn) => { try { fn(); } catch (err) { return err; } return null; };
      const cases = [
        [ours(() => qt.stats(5)), notObject, 'options', 'options'],
        [ours(() => qt.pending(null)), null, null, null],
        [ours(() => qt.stats({ reset: 'yes' })), notBoolean, 'options.ref', 'options.reset'],
        [ours(() => qt.pending({ refedOnly: 'yes' })), notBoolean, 'options.ref', 'options.refedOnly'],
      ];
      for (const [err, node, nodeName, ourName] of cases) {
        t.ok(err instanceof TypeError, String(err));
        t.equal(err.code, 'ERR_INVALID_ARG_TYPE');
        if (node !== null) t.equal(err.message, node.message.replace(`"${nodeName}"`, `"${ourName}"`));
      }
      t.equal(ours(() => qt.pending(null)).message, 'The "options" argument must be of type object. Received null');
      const origins = ours(() => qt.trackOrigins(1));
      t.ok(origins instanceof TypeError && origins.code === 'ERR_INVALID_ARG_TYPE', String(origins));
      t.equal(origins.message, 'The "enabled" argument must be of type boolean. Received type number (1)');
      t.ok(origins.stack.split('\n')[1].includes(__filename), 'the stack starts at the call');
      t.ok(Array.isArray(qt.pending(undefined)) && typeof qt.stats({}) === 'object', 'undefined and {} are fine');
      // a misspelt option name is refused, not ignored
      for (const [err, name] of [[ours(() => qt.stats({ rest: true })), 'stats()'], [ours(() => qt.pending({ refed: true })), 'pending()']]) {
        t.ok(err instanceof TypeError && err.code === 'ERR_INVALID_ARG_VALUE', String(err));
        t.ok(err.message.endsWith(`is not an option of ${name}. Received true`), err.message);
      }
      t.done();
    }).catch((err) => { t.fail(err.stack); t.done(); });
  },
};
