/*
 * generate: random timer programs for the property tests, reproducible from a seed.
 *
 * A program is plain JSON (so a child process can rebuild it from the seed alone, and a failing
 * one can be printed): a list of actions run synchronously at program start, where an action is
 *
 *   { op: 'set', id, kind: 'timeout'|'interval'|'immediate', delay, args, store, unref, throws,
 *     times, body }      schedule a callback; `body` runs inside it (on its first call only),
 *                        `throws` makes every call throw after the body, an interval clears itself
 *                        on call number `times`, `store` is null (inherit), 'new' (run the call
 *                        in a fresh AsyncLocalStorage store) or 'exit' (run it outside any store)
 *   { op: 'clear', target, how }    how: 'own' (the kind's clear*), 'cross' (clearInterval on a
 *                        timeout or clearTimeout on an interval) or 'id' (clearTimeout(+handle))
 *   { op: 'refresh'|'ref'|'unref'|'hasRef', target }
 *   { op: 'tick'|'micro'|'promise', id, body }   queue a nextTick / queueMicrotask / promise job
 *   { op: 'busy', ms }   spin for a while (time passes within one synchronous section)
 *   { op: 'mark', id }   queue a native setImmediate: a marker for the event loop turn
 *   { op: 'chain', id, n, busy, markAt }   an immediate that queues the next link from its
 *                        callback, n links in all, ids `${id}.0` .. `${id}.${n-1}` (a recursive
 *                        setImmediate); link markAt (-1: none) queues a marker before its next link
 *
 * Targets name any timer the generator made earlier in program order; at run time it may not
 * exist yet (its creator has not run), in which case the action is recorded as a no-op.
 * Delays are 0..maxDelay ms and sometimes odd values Node normalizes (undefined, fractions,
 * strings, negatives), so that the whole program runs in a few tens of milliseconds.
 *
 * This file is loaded by qnit when it runs the whole test/ tree: it exports nothing enumerable,
 * so qnit finds no tests in it, and does nothing when required.
 */
'use strict';

// mulberry32: a tiny, good-enough 32-bit PRNG, fully determined by its seed
function mulberry32(seed) {
  let a = seed >>> 0;
  return function random() {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DEFAULTS = {
  maxDelay: 20,       // ms
  maxTimers: 24,      // per program, chains included
  maxDepth: 3,        // nesting of callbacks inside callbacks
  stores: true,       // use AsyncLocalStorage
  throws: true,       // let some callbacks throw
  busy: true,         // let some synchronous sections take a few ms
};

function generateProgram(seed, options) {
  const opts = Object.assign({}, DEFAULTS, options);
  const random = mulberry32(seed);
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  const chance = (p) => random() < p;
  const pick = (list) => list[Math.floor(random() * list.length)];

  const timers = [];        // { id, kind } in the order the generator made them
  let nextId = 1;
  let budget = opts.maxTimers;

  function delay() {
    const r = random();
    if (r < 0.04) return undefined;
    if (r < 0.07) return int(0, 40) / 10;                   // fractions, incl. < 1
    if (r < 0.09) return String(int(0, opts.maxDelay));     // coerced like Node does
    if (r < 0.10) return -int(1, 5);                        // becomes 1
    if (r < 0.30) return int(0, 2);                         // many equal and 1 ms delays
    return int(0, opts.maxDelay);
  }

  function args() {
    const n = chance(0.6) ? 0 : int(1, 5);
    const list = [];
    for (let i = 0; i < n; i++) {
      const r = random();
      list.push(r < 0.3 ? int(-5, 100) : r < 0.5 ? 'a' + int(0, 9) : r < 0.6 ? undefined : r < 0.7 ? null : { obj: i });
    }
    return list;
  }

  function body(depth, size) {
    const actions = [];
    for (let i = 0; i < size; i++) {
      const a = action(depth);
      if (a !== null) actions.push(a);
    }
    return actions;
  }

  function target(filter) {
    const list = filter ? timers.filter(filter) : timers;
    return list.length > 0 ? pick(list) : null;
  }

  function action(depth) {
    const r = random();
    if (r < 0.56) {
      if (budget <= 0) return null;
      budget -= 1;
      const k = random();
      const kind = k < 0.5 ? 'timeout' : k < 0.85 ? 'immediate' : 'interval';
      const id = 't' + nextId++;
      timers.push({ id, kind });
      const a = { op: 'set', id, kind };
      if (kind !== 'immediate') a.delay = delay();
      a.args = args();
      // drawn even without stores, so that a program differs from its store-less twin only there
      const store = chance(0.3) ? 'new' : chance(0.05) ? 'exit' : null;
      a.store = opts.stores ? store : null;
      a.unref = chance(0.12);
      const throws = chance(0.1);
      a.throws = opts.throws && throws;
      if (kind === 'interval') a.times = int(1, 3);
      a.body = depth < opts.maxDepth ? body(depth + 1, int(0, 3)) : [];
      return a;
    }
    if (r < 0.68) {
      const t = target();
      if (t === null) return null;
      let how = 'own';
      if (t.kind !== 'immediate') {
        const h = random();
        how = h < 0.15 ? 'cross' : h < 0.3 ? 'id' : 'own';
      }
      return { op: 'clear', target: t.id, how };
    }
    if (r < 0.75) {
      const t = target((x) => x.kind !== 'immediate');
      return t === null ? null : { op: 'refresh', target: t.id };
    }
    if (r < 0.80) {
      const t = target();
      return t === null ? null : { op: chance(0.5) ? 'unref' : 'ref', target: t.id };
    }
    if (r < 0.83) {
      const t = target();
      return t === null ? null : { op: 'hasRef', target: t.id };
    }
    if (r < 0.91) {
      const op = pick(['tick', 'micro', 'promise']);
      return { op, id: 'q' + nextId++, body: depth < opts.maxDepth + 1 ? body(depth, int(0, 2)) : [] };
    }
    if (r < 0.93) return { op: 'mark', id: 'm' + nextId++ };
    if (r < 0.97) {
      const ms = int(1, 30) / 10;
      return opts.busy ? { op: 'busy', ms } : null;
    }
    // a recursive setImmediate, long enough to cross the default maxTickDepth budget of 10
    const n = int(2, 14);
    if (budget < n) return null;
    budget -= n;
    const id = 'c' + nextId++;
    for (let i = 0; i < n; i++) timers.push({ id: id + '.' + i, kind: 'immediate' });
    const busy = chance(0.5) ? int(1, 8) / 10 : 0;
    const markAt = chance(0.5) ? int(0, n - 1) : -1;
    return { op: 'chain', id, n, busy: opts.busy ? busy : 0, markAt };
  }

  const actions = body(0, int(2, 7));
  return { seed, maxDelay: opts.maxDelay, actions };
}

if (require.main === module) {
  // print a program: node test/property/generate.js SEED
  const seed = Number(process.argv[2] || 1);
  console.log(JSON.stringify(generateProgram(seed), null, 1));
}

Object.defineProperties(module.exports, {
  mulberry32: { value: mulberry32 },
  generateProgram: { value: generateProgram },
  DEFAULTS: { value: DEFAULTS },
});
