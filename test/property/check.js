/*
 * check: the properties every program's log must have, whichever timers ran it.
 *
 * check(program, log, options) returns { violations: [{ property, message }], stats }.
 * options: {
 *   tolerance: ms a timeout may fire before its delay is up (Node's own 1 ms quantisation;
 *              the runner derives it from the native control runs),
 *   earlyFrom: 'call' (default): the delay counts from the setTimeout()/refresh() call, as in
 *              Node (and qtimers with setTimeout.exactStart); 'section': from the start of the
 *              batch that made the call (qtimers' default batch timestamp, see sectionFloors),
 *   batch:     with 'section', how many callbacks run back to back may share a timestamp
 *   turnLimit: how many immediates queued in the check phase after a native setImmediate may
 *              run before it (0: Node's rule, 10: maxTickDepth -10), or null to skip that property
 * }
 *
 * The properties (names as reported):
 *   exactly-once     every timer fires once per arming (an interval until it is cleared), none
 *                    is left over, none fires when it is not armed
 *   cleared          a cleared timer never fires again
 *   not-early        a timeout fires no sooner than its delay after it was (re)armed (see
 *                    earlyFrom), give or take the tolerance; an interval's next period starts no
 *                    sooner than the previous one was due (Node 18 counts it from the batch's
 *                    start, so no stricter bound holds natively); a refresh() of a timer that was
 *                    already due may not delay it (Node runs a timer it found due even when the
 *                    ticks drained just before refreshed it)
 *   immediate-fifo   immediates run in the order they were created
 *   timeout-fifo     timeouts of the same delay run in the order they were (re)armed
 *   ticks            the nextTicks, microtasks and promise jobs a callback queued have all run
 *                    before the next callback starts
 *   no-reentry       a callback never starts while another is running
 *   this, args       a callback gets its handle as `this` and exactly the arguments it was given
 *   store            a callback sees the AsyncLocalStorage store it was scheduled in (a fired
 *                    timeout revived by refresh(): the store refresh() was called in)
 *   uncaught         each throw reaches 'uncaughtException' exactly once, before the next callback
 *   hasRef           hasRef() answers as Node's does (see model.js)
 *   turn             immediates queued in the check phase wait for the next event loop turn: a
 *                    native setImmediate queued in an immediate's callback (or its jobs) runs
 *                    before every immediate queued after it by immediates' callbacks, except for
 *                    up to turnLimit of them (maxTickDepth -10 runs up to 10 new ones in the same
 *                    turn).  Immediates queued by the jobs of a drain's last callback are left out:
 *                    qtimers runs those after its drain has returned, and they may join the next
 *                    drain, queued before the marker: a later turn all the same, but not FIFO
 *                    with native immediates, which is not what this property is about
 *
 * Loaded by qnit with the whole test/ tree: exports nothing enumerable, does nothing on require.
 */
'use strict';

const { Model } = require('./model');

const TIMEOUT_MAX = 2 ** 31 - 1;

/* the delay Node uses for a setTimeout/setInterval argument */
function effectiveDelay(after) {
  let a = after === undefined ? 1 : Number(after);
  if (!(a >= 1 && a <= TIMEOUT_MAX)) a = 1;
  return Math.trunc(a);
}

/*
 * For each create/refresh event (by index): the earliest time the timestamp it was stamped with
 * may have been read, under batch timestamps shared by up to `batch` callbacks run back to back
 * (and by a synchronous section of other code, such as the program's main part, with its jobs).
 * A batch never spans two drains, so for a callback the bound is the last event logged before
 * the callback `batch - 1` callbacks earlier (or before itself, batch = 1); its jobs share it.
 */
function sectionFloors(log, batch) {
  const floors = new Map();       // event index -> ms
  const prevT = [];               // per fire, in order: the last event time before it
  const floorOf = new Map();      // owner id -> floor for its current call
  let lastT = -Infinity;
  for (let i = 0; i < log.length; i++) {
    const e = log[i];
    if (e.e === 'fire') {
      prevT.push(lastT > -Infinity ? lastT : e.t);
      floorOf.set(e.id, prevT[Math.max(0, prevT.length - batch)]);
    }
    if (e.e === 'create' || e.e === 'refresh') {
      let floor = e.owner === 'main' || e.owner === undefined || e.owner === null ? (e.st !== undefined ? e.st : e.t0) : floorOf.get(e.owner);
      if (floor === undefined || floor > e.t0) floor = e.t0;
      floors.set(i, floor);
    }
    const t = e.t !== undefined ? e.t : e.t0;
    if (t !== undefined && t > lastT) lastT = t;
  }
  return floors;
}

function check(program, log, options) {
  const opts = Object.assign({ tolerance: 1, turnLimit: null, earlyFrom: 'call', batch: 1 }, options);
  const fromSection = opts.earlyFrom === 'section';
  const violations = [];
  // maxEarly: counted from the call; maxEarlySection: from the start of the section
  const stats = { maxEarly: -Infinity, maxEarlySection: -Infinity, fires: 0, throws: 0, creates: 0, revived: 0 };
  const fail = (property, message) => violations.push({ property, message });

  const model = new Model();
  const creates = new Map();      // id -> { index, e }
  const expectedStore = new Map(); // id -> the store its next call must see
  const arm = new Map();          // id -> { t, index, ambiguous } the arming the next fire belongs to
  const running = [];             // stack of { id, n } fired and not yet ended
  const fires = [];               // { id, index, armIndex, list, ambiguous } per timeout fire
  const immediateFires = [];      // creation index per immediate fire, in firing order
  const refreshedInCall = new Set();
  const endOf = new Map();        // 'id/n' -> end event index, for throws
  const queued = new Map();       // job id -> { index, owner }
  const jobRuns = new Map();      // job id -> run index
  const uncaughts = new Map();    // 'id/n' -> [index...]
  const fireIndexes = [];         // indexes of all fire events
  const marks = new Map();        // marker id -> { index, phase, ran }
  const floors = sectionFloors(log, opts.batch);

  for (let i = 0; i < log.length; i++) {
    const e = log[i];
    switch (e.e) {
      case 'create': {
        stats.creates += 1;
        creates.set(e.id, { index: i, e });
        expectedStore.set(e.id, e.store);
        if (e.kind !== 'immediate') arm.set(e.id, { t: e.t0, ts: floors.get(i), index: i, ambiguous: false, exact: true });
        model.apply(e);
        break;
      }
      case 'fire': {
        stats.fires += 1;
        fireIndexes.push(i);
        if (running.length > 0) {
          fail('no-reentry', `${e.id} started while ${running[running.length - 1].id} was running (event ${i})`);
        }
        running.push({ id: e.id, n: e.n });
        const st = model.state(e.id);
        const created = creates.get(e.id);
        if (st === undefined || created === undefined) {
          fail('exactly-once', `${e.id} fired but was never created (event ${i})`);
          break;
        }
        if (!st.pending) {
          if (st.cleared) fail('cleared', `${e.id} fired after it was cleared (event ${i}, call ${e.n})`);
          else fail('exactly-once', `${e.id} fired again without being re-armed (event ${i}, call ${e.n})`);
        }
        if (!e.thisOk) fail('this', `${e.id} was not called with its handle as this (event ${i})`);
        if (!e.argsOk) fail('args', `${e.id} did not get its arguments (event ${i})`);
        if (st.revived) stats.revived += 1;
        if (e.store !== expectedStore.get(e.id)) {
          fail('store', `${e.id} ran with store ${e.store}, ${st.revived ? 'revived by refresh() in' : 'scheduled in'} ${expectedStore.get(e.id)} (event ${i})`);
        }
        if (st.kind === 'immediate') {
          immediateFires.push({ id: e.id, created: created.index, index: i });
        } else {
          const a = arm.get(e.id);
          const eff = effectiveDelay(created.e.delay);
          const early = a.t + eff - e.t;
          const earlySection = a.ts + eff - e.t;
          if (early > stats.maxEarly) stats.maxEarly = early;
          if (earlySection > stats.maxEarlySection) stats.maxEarlySection = earlySection;
          const checked = fromSection ? earlySection : early;
          if (checked > opts.tolerance) {
            fail('not-early', `${e.id} (delay ${JSON.stringify(created.e.delay)}) fired ${checked.toFixed(2)} ms early, counting from ${fromSection ? 'the start of the section that armed it' : 'the call that armed it'} (event ${i}, armed at event ${a.index})`);
          }
          fires.push({ id: e.id, index: i, armIndex: a.index, list: eff, ambiguous: a.ambiguous, exact: a.exact, due: a.t + eff });
          // the next period of an interval: Node starts it from the batch's time before the
          // call (Node 18: possibly long before), which is at least this period's due time
          if (st.kind === 'interval') arm.set(e.id, { t: a.t + eff, ts: a.ts + eff, index: -1, ambiguous: false, exact: false, pendingEnd: true });
          refreshedInCall.delete(e.id);
        }
        model.apply(e);
        break;
      }
      case 'end': {
        if (e.id === 'main') break;
        const top = running.pop();
        if (top === undefined || top.id !== e.id) {
          fail('no-reentry', `${e.id} ended but ${top ? top.id : 'nothing'} was running (event ${i})`);
        }
        if (e.threw) {
          stats.throws += 1;
          endOf.set(e.id + '/' + e.n, i);
        }
        const st = model.state(e.id);
        if (st && st.kind === 'interval' && st.pending) {
          // re-armed now, in list order (a refresh() during the call makes Node's order differ)
          const a = arm.get(e.id);
          if (a.pendingEnd) arm.set(e.id, { t: a.t, ts: a.ts, index: i, ambiguous: refreshedInCall.has(e.id), exact: false });
        }
        break;
      }
      case 'refresh': {
        const was = e.found ? model.state(e.target) : undefined;
        const wasPending = was !== undefined && was.pending;
        // a fired timeout revived by refresh() runs in the refresher's context, as a new one would
        if (was && was.kind === 'timeout' && !was.pending && !was.cleared) expectedStore.set(e.target, e.store);
        const st = model.apply(e);
        if (st && st.pending && st.kind !== 'immediate') {
          const inOwnCall = running.some((r) => r.id === e.target);
          const prev = arm.get(e.target);
          const prevDue = prev ? prev.t + effectiveDelay(creates.get(e.target).e.delay) : Infinity;
          if (wasPending && !inOwnCall && prevDue <= e.t1 + 1) {
            // refreshing a timer that is already due may not delay it: Node decides a timer
            // is due, then drains the ticks of the previous callback, then runs it, even when
            // those ticks refreshed it (and the refresh is lost).  Keep the earlier bound.
            arm.set(e.target, { t: prev.t, ts: prev.ts, index: i, ambiguous: true, exact: false });
          } else if (inOwnCall && st.kind === 'interval') {
            // Node re-inserts a running interval after its call with the start it read before
            // the call, undoing the refresh: keep the bound and the position of the re-arm
            refreshedInCall.add(e.target);
          } else {
            arm.set(e.target, { t: e.t0, ts: floors.get(i), index: i, ambiguous: false, exact: true });
          }
        }
        break;
      }
      case 'hasRef': {
        if (!e.found) break;
        const st = model.state(e.target);
        if (st && e.value !== st.refed) {
          fail('hasRef', `${e.target}.hasRef() returned ${e.value}, Node's answer is ${st.refed} (event ${i})`);
        }
        break;
      }
      case 'clear': case 'ref': case 'unref':
        model.apply(e);
        break;
      case 'queue':
        queued.set(e.id, { index: i, owner: e.owner, call: e.call });
        break;
      case 'run':
        if (running.length > 0) fail('no-reentry', `job ${e.id} ran inside callback ${running[running.length - 1].id} (event ${i})`);
        jobRuns.set(e.id, i);
        break;
      case 'uncaught': {
        const key = e.id + '/' + e.n;
        if (!uncaughts.has(key)) uncaughts.set(key, []);
        uncaughts.get(key).push(i);
        if (!e.ok) fail('uncaught', `'uncaughtException' for ${key} did not get the error thrown (event ${i})`);
        // a throwing callback leaves the running stack via its end event already
        break;
      }
      case 'foreign':
        fail('uncaught', `unexpected 'uncaughtException': ${e.message}`);
        break;
      case 'mark':
        marks.set(e.id, { index: i, phase: e.phase, ran: Infinity });
        break;
      case 'jobend':
        break;
      case 'markrun':
        if (marks.has(e.id)) marks.get(e.id).ran = i;
        break;
      case 'stall': case 'done':
        break;
      default:
        fail('log', `unknown event ${JSON.stringify(e)}`);
    }
  }

  // leftovers: armed and never fired
  const left = model.pendingIds();
  if (left.length > 0) fail('exactly-once', `never fired (still armed at the end): ${left.join(', ')}`);

  // immediates in creation order
  for (let k = 1; k < immediateFires.length; k++) {
    const a = immediateFires[k - 1];
    const b = immediateFires[k];
    if (b.created < a.created) {
      fail('immediate-fifo', `${b.id} ran after ${a.id} but was created before it (events ${b.index}, ${a.index})`);
    }
  }

  // same delay: the order they were armed in
  const byList = new Map();
  for (const f of fires) {
    if (f.ambiguous || f.armIndex < 0) continue;
    if (!byList.has(f.list)) byList.set(f.list, []);
    byList.get(f.list).push(f);
  }
  for (const [list, fs] of byList) {
    fs.sort((x, y) => x.armIndex - y.armIndex);
    for (let k = 1; k < fs.length; k++) {
      if (fs[k].index < fs[k - 1].index) {
        fail('timeout-fifo', `${fs[k].id} (armed at event ${fs[k].armIndex}) ran before ${fs[k - 1].id} (armed at event ${fs[k - 1].armIndex}), both ${list} ms`);
      }
    }
  }

  // jobs run before the next callback starts
  const nextFireAfter = (index) => {
    for (const f of fireIndexes) if (f > index) return f;
    return Infinity;
  };
  for (const [id, q] of queued) {
    const r = jobRuns.get(id);
    if (r === undefined) {
      fail('ticks', `job ${id} queued by ${q.owner} never ran`);
      continue;
    }
    // Node does not promise this after a callback that threw: the remaining due timers run
    // right after 'uncaughtException', and the jobs the thrower queued after them
    if (endOf.has(q.owner + '/' + q.call)) continue;
    const f = nextFireAfter(q.index);
    if (r > f) fail('ticks', `job ${id} queued by ${q.owner} ran after the next callback ${log[f].id} started (events ${r}, ${f})`);
  }

  // one 'uncaughtException' per throw, reported before the next callback starts
  for (const [key, endIndex] of endOf) {
    const got = uncaughts.get(key) || [];
    if (got.length !== 1) {
      fail('uncaught', `${key} threw once, 'uncaughtException' reported it ${got.length} times`);
      continue;
    }
    const f = nextFireAfter(endIndex);
    if (got[0] > f) fail('uncaught', `the throw of ${key} was reported after the next callback ${log[f].id} started`);
  }
  for (const key of uncaughts.keys()) {
    if (!endOf.has(key)) fail('uncaught', `'uncaughtException' for ${key}, which did not throw`);
  }

  // the event loop turn: a native immediate queued in the check phase runs in the next turn,
  // and so does every immediate queued after it in the check phase (Node's rule)
  if (opts.turnLimit !== null) {
    for (const [id, m] of marks) {
      if (m.phase !== 'immediate') continue;
      if (m.ran === Infinity) {
        fail('turn', `marker ${id} never ran`);
        continue;
      }
      const overtook = immediateFires.filter((f) => {
        const c = log[f.created];
        return f.created > m.index && c.phase === 'immediate' && !c.job && f.index < m.ran;
      });
      if (overtook.length > opts.turnLimit) {
        fail('turn', `${overtook.length} immediates queued in the check phase after native marker ${id} ran before it (limit ${opts.turnLimit}): ${overtook.map((x) => x.id).join(', ')}`);
      }
    }
  }

  return { violations, stats };
}

/*
 * For a program run in a process of its own, left to exit by itself (child.js --exit): once
 * nothing referenced is left (no referenced timer armed, no job or native immediate queued), the
 * process exits at the end of that event loop turn, so no timeout that was not yet due then may
 * fire afterwards.  (Immediates may still run in that turn's check phase; 2 ms of slack for the
 * rest of the turn.)  A throw ends the check: Node itself keeps the loop going for a while after
 * an exception is handled.  options: earlyFrom and batch, as for check().  Returns a list of
 * messages.
 */
function exitViolations(log, options) {
  const opts = Object.assign({ earlyFrom: 'call', batch: 1 }, options);
  const floors = opts.earlyFrom === 'section' ? sectionFloors(log, opts.batch) : null;
  const SLACK = 2;
  const model = new Model();
  const problems = [];
  const delays = new Map();   // id -> effective delay
  const due = new Map();      // id -> due time of its pending arming
  let outstanding = 0;        // jobs and native immediates queued, not yet run
  let running = 0;            // callbacks running
  let lastT = -Infinity;
  let idleSince = null;       // time from which nothing referenced was left
  let mainDone = false;
  const referenced = () => {
    let n = outstanding;
    for (const st of model.timers.values()) if (st.pending && st.refed) n += 1;
    return n;
  };
  for (let i = 0; i < log.length; i++) {
    const e = log[i];
    const t = e.t !== undefined ? e.t : e.t0;
    if (t !== undefined && t > lastT) lastT = t;
    // when the timer was stamped, at the earliest
    const stamped = floors !== null && floors.has(i) ? floors.get(i) : e.t0;
    switch (e.e) {
      case 'create':
        if (e.kind !== 'immediate') {
          delays.set(e.id, effectiveDelay(e.delay));
          due.set(e.id, stamped + delays.get(e.id));
        }
        break;
      case 'refresh':
        // (a refresh of a timer already due may not delay it: see check())
        if (e.found && delays.has(e.target)) {
          const st = model.state(e.target);
          const alreadyDue = st !== undefined && st.pending && due.get(e.target) <= e.t1 + 1;
          if (!alreadyDue) due.set(e.target, stamped + delays.get(e.target));
        }
        break;
      case 'fire': {
        running += 1;
        const d = due.get(e.id);
        if (idleSince !== null && d !== undefined && d > idleSince + SLACK) {
          problems.push(`${e.id} fired, due ${(d - idleSince).toFixed(1)} ms after nothing referenced was left: something kept the process alive`);
        }
        // an interval's next period: due no sooner than a period after this one was due
        if (d !== undefined) due.set(e.id, d + delays.get(e.id));
        break;
      }
      case 'end':
        if (e.id === 'main') mainDone = true;
        else running -= 1;
        if (e.threw) return problems;
        break;
      case 'queue': case 'mark':
        outstanding += 1;
        break;
      case 'run': case 'markrun':
        outstanding -= 1;
        break;
      default:
        break;
    }
    model.apply(e);
    // idle is judged where control goes back to the event loop: after a callback, a job, a marker
    if (!mainDone || running > 0 || !(e.e === 'end' || e.e === 'jobend' || e.e === 'markrun')) continue;
    if (referenced() === 0) {
      if (idleSince === null) idleSince = lastT;
    } else {
      idleSince = null;
    }
  }
  return problems;
}

Object.defineProperties(module.exports, {
  check: { value: check },
  exitViolations: { value: exitViolations },
  effectiveDelay: { value: effectiveDelay },
});
