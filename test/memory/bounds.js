#!/usr/bin/env node
/*
 * bounds: qtimers' memory bounds, measured.  Runnable by hand (prints figures):
 *
 *   node --expose-gc test/memory/bounds.js                   all sections, full size
 *   node --expose-gc test/memory/bounds.js --small           the sizes test/system/test-memory.js uses
 *   node --expose-gc test/memory/bounds.js --section NAME [--json] [--impl native|qtimers] [sizes]
 *
 * sections (sizes: --cycles, --timers, --calls, --n):
 *   setclear     --cycles 10M set/clear cycles (timeouts with 5000 different delays, intervals,
 *                immediates, timeouts with arguments; cleared newest-first and oldest-first)
 *                with --timers 100k timeouts pending throughout: the heap after gc, at every
 *                checkpoint, against the heap of that live set (bound: 2x)
 *   setclear-sync  (reported, not bounded) --cycles immediate set/clear cycles in one synchronous
 *                loop, the older of each pair cleared first, measured before the program yields
 *   refresh      --calls 10M refresh() calls spread over --timers 100k pending 60 s timeouts:
 *                the same comparison (bound: 2x)
 *   unreachable  a cleared timeout's, interval's and immediate's callback and arguments can be
 *                garbage collected at once, while the program still holds the handle (and an
 *                immediate's handle is still in the queue); likewise once an immediate has run.
 *                --retain keeps them alive on purpose, to show the check can tell.  (Node < 24
 *                keeps a cleared timer's arguments until the handle goes; Node >= 24 does not.)
 *   pending      --n 1M pending timeouts: heap per timer under qtimers and under Node's timers,
 *                each measured in a child process running this same script with and without
 *                `-r <repo>/index.js`, and with qtimers required on its first line
 *                (--require-qtimers; section pending-child); bound: qtimers <= half of native,
 *                in both positions.
 *                Also reported, not bounded: when the program keeps the handles in an array
 *                (8 more bytes a timer on either side), and with one argument per timer
 *
 * The qtimers sections use lib/standalone.js (--impl native measures Node's timers for reference).
 * With --json the last line of output is the figures as JSON (test/system/test-memory.js reads it).
 * Needs --expose-gc (re-runs itself with it if missing).
 *
 * qnit loads every .js under test/: nothing runs unless this is the main module.
 */
'use strict';
// pending-child --require-qtimers: qtimers required on the main module's first line, as an app does
if (process.argv.includes('--require-qtimers')) require('../../index.js');

const path = require('path');
const childProcess = require('child_process');
const nodeTimers = require('timers');

const REPO = path.resolve(__dirname, '../..');
const nativeSetImmediate = nodeTimers.setImmediate;

const FULL = { cycles: 10e6, timers: 100e3, calls: 10e6, n: 1e6 };
const SMALL = { cycles: 1e6, timers: 20e3, calls: 1e6, n: 200e3 };

function heap() {
  global.gc();
  global.gc();
  return process.memoryUsage().heapUsed;
}

const turn = () => new Promise((resolve) => nativeSetImmediate(resolve));

function apiFor(impl) {
  return impl === 'native' ? nodeTimers : require(path.join(REPO, 'lib/standalone'));
}

const MB = (b) => (b / 1048576).toFixed(1) + ' MB';

// ---------------------------------------------------------------- setclear

async function setclear(opts) {
  const api = apiFor(opts.impl);
  const fn = function noop() {};
  const live = [];
  for (let i = 0; i < opts.timers; i++) live.push(api.setTimeout(fn, 60000 + (i % 100)));
  await turn();
  const base = heap();
  const checkpoints = [];
  const chunk = 100000;
  const every = Math.max(chunk, Math.floor(opts.cycles / 10));
  const leaked = opts.leak ? [] : null;
  let done = 0;
  let worst = base;
  const started = Date.now();
  while (done < opts.cycles) {
    const end = Math.min(opts.cycles, done + chunk);
    for (let i = done; i < end; i += 2) {
      const d = 1 + (i % 5000);
      if (leaked !== null) leaked.push(api.setTimeout(fn, d, i));    // --leak: the check must fail
      let a;
      let b;
      switch ((i >> 1) & 3) {
        case 0: a = api.setTimeout(fn, d); b = api.setTimeout(fn, d + 1); break;
        case 1: a = api.setInterval(fn, d); b = api.setInterval(fn, d); break;
        case 2: a = api.setImmediate(fn); b = api.setImmediate(fn, i); break;
        default: a = api.setTimeout(fn, d, i, 'x'); b = api.setTimeout(fn, d, { i }); break;
      }
      // two cycles: newest first (the common set/clear pattern), then oldest first
      if (i & 2) {
        if ((i >> 1 & 3) === 2) { api.clearImmediate(b); api.clearImmediate(a); }
        else { api.clearTimeout(b); api.clearTimeout(a); }
      } else if ((i >> 1 & 3) === 2) { api.clearImmediate(a); api.clearImmediate(b); }
      else { api.clearTimeout(a); api.clearTimeout(b); }
    }
    done = end;
    // a program yields to the event loop now and then: let it
    await turn();
    if (done % every === 0 || done === opts.cycles) {
      const h = heap();
      worst = Math.max(worst, h);
      checkpoints.push({ cycles: done, heap: h });
    }
  }
  const seconds = (Date.now() - started) / 1000;
  for (const t of live) api.clearTimeout(t);
  if (leaked !== null) for (const t of leaked) api.clearTimeout(t);
  return { impl: opts.impl, leak: !!opts.leak, cycles: opts.cycles, liveTimers: opts.timers, liveHeap: base, worstHeap: worst, ratio: worst / base, checkpoints, seconds };
}

// Not bounded, reported: set two immediates, clear the older one first, in one synchronous loop.
// Node unlinks a cleared immediate; qtimers leaves a cleared one that is not the newest in its
// queue until the next drain, so the heap grows until the program yields.
async function setclearSync(opts) {
  const api = apiFor(opts.impl);
  const fn = function noop() {};
  await turn();
  const base = heap();
  const loops = opts.cycles / 4;
  for (let i = 0; i < loops; i++) {
    const a = api.setImmediate(fn);
    const b = api.setImmediate(fn);
    api.clearImmediate(a);
    api.clearImmediate(b);
  }
  const before = heap();
  await turn();
  const after = heap();
  return { impl: opts.impl, cycles: opts.cycles, base, beforeYield: before, afterYield: after, growthBeforeYield: before - base, growthAfterYield: after - base };
}

// ---------------------------------------------------------------- refresh

async function refresh(opts) {
  const api = apiFor(opts.impl);
  const fn = function noop() {};
  const live = [];
  for (let i = 0; i < opts.timers; i++) live.push(api.setTimeout(fn, 60000));
  await turn();
  const base = heap();
  const checkpoints = [];
  const chunk = 100000;
  const every = Math.max(chunk, Math.floor(opts.calls / 10));
  let done = 0;
  let k = 0;
  let worst = base;
  const started = Date.now();
  while (done < opts.calls) {
    const end = Math.min(opts.calls, done + chunk);
    for (let i = done; i < end; i++) {
      // round robin with a stride, so refreshes hit the middle of the list as well as its head
      live[k].refresh();
      k += 7919;
      if (k >= live.length) k -= live.length;
    }
    done = end;
    await turn();
    if (done % every === 0 || done === opts.calls) {
      const h = heap();
      worst = Math.max(worst, h);
      checkpoints.push({ calls: done, heap: h });
    }
  }
  const seconds = (Date.now() - started) / 1000;
  for (const t of live) api.clearTimeout(t);
  return { impl: opts.impl, calls: opts.calls, liveTimers: opts.timers, liveHeap: base, worstHeap: worst, ratio: worst / base, checkpoints, seconds };
}

// ---------------------------------------------------------------- unreachable

async function unreachable(opts) {
  const api = apiFor(opts.impl);
  const { AsyncLocalStorage } = require('async_hooks');
  const results = {};
  const keep = [];      // the handles stay reachable throughout
  const retained = [];

  // make a timer in its own function so no local of ours keeps the callback or arguments
  function make(kind, withStore) {
    const arg = { big: new Array(1000).fill(kind) };
    const cb = function callback() { return arg; };
    // the store the timer was scheduled in: qtimers records it for the callback (and reuses
    // that record for the other timers of the same section), and must let it go as well
    const store = withStore ? { store: kind } : null;
    const refs = { cb: new WeakRef(cb), arg: new WeakRef(arg), store: store && new WeakRef(store) };
    // --retain: behave like timers that keep what they were given (the check must notice)
    if (opts.retain) retained.push(cb, arg, store);
    const schedule = () => {
      if (kind === 'immediate' || kind === 'immediate-ran') return api.setImmediate(cb, arg);
      if (kind === 'interval') return api.setInterval(cb, 60000, arg);
      return api.setTimeout(cb, 60000, arg);
    };
    const handle = withStore ? new AsyncLocalStorage().run(store, schedule) : schedule();
    return { handle, refs };
  }

  const cases = [
    ['timeout', false], ['interval', false], ['immediate', false], ['immediate-ran', false],
    ['timeout', true], ['immediate', true],
    // last, so that nothing scheduled after it could displace a record qtimers kept of its store
    ['interval', true],
  ];
  const made = [];
  for (const [kind, withStore] of cases) {
    const m = make(kind, withStore);
    keep.push(m.handle);
    // an immediate cleared behind another one stays in the queue until it drains
    if (kind === 'immediate') keep.push(api.setImmediate(() => {}));
    made.push({ name: kind + (withStore ? ' (with a store)' : ''), kind, m });
  }
  for (const { kind, m } of made) {
    if (kind === 'immediate') api.clearImmediate(m.handle);
    else if (kind === 'interval') api.clearInterval(m.handle);
    else if (kind !== 'immediate-ran') api.clearTimeout(m.handle);
  }
  // WeakRef targets stay alive until the current job ends: check from a later turn, before
  // the cleared immediate's queue has drained for the 'immediate' cases (qtimers drains it in
  // the check phase of this turn; the handle object may still be in the queue, its callback not)
  await new Promise((resolve) => process.nextTick(resolve));
  await turn();
  // a store entered inside a qtimers callback (a drain), for a timer cleared there
  const inDrain = await new Promise((resolve) => api.setImmediate(() => {
    const store = { store: 'in a callback' };
    const arg = { big: new Array(1000).fill(0) };
    const cb = function callback() { return arg; };
    if (opts.retain) retained.push(cb, arg, store);
    new AsyncLocalStorage().run(store, () => api.clearTimeout(api.setTimeout(cb, 60000, arg)));
    resolve({ cb: new WeakRef(cb), arg: new WeakRef(arg), store: new WeakRef(store) });
  }));
  await turn();
  heap();
  for (const { name, m } of made) {
    results[name] = { callbackCollected: m.refs.cb.deref() === undefined, argsCollected: m.refs.arg.deref() === undefined };
    if (m.refs.store) results[name].storeCollected = m.refs.store.deref() === undefined;
  }
  results['timeout (with a store, made and cleared in a callback)'] = {
    callbackCollected: inDrain.cb.deref() === undefined,
    argsCollected: inDrain.arg.deref() === undefined,
    storeCollected: inDrain.store.deref() === undefined,
  };
  results.handlesKept = keep.length;
  return { impl: opts.impl, retain: !!opts.retain, retained: retained.length, results };
}

// ---------------------------------------------------------------- pending

// in a child: measure the globals (native, or qtimers when preloaded), one scenario per process
async function pendingChild(opts) {
  const fn = function noop() {};
  const installed = typeof globalThis.currentTimestamp === 'function';
  const out = { impl: installed ? 'qtimers' : 'native', n: opts.n, scenario: opts.scenario, node: process.version };
  await turn();
  const base = heap();
  let handles = null;
  if (opts.scenario === 'timers') {
    // the timers alone: nothing but the timer system references them
    for (let i = 0; i < opts.n; i++) setTimeout(fn, 60000 + (i % 10));
  } else if (opts.scenario === 'handles') {
    // the handles also kept by the program, in an array
    handles = new Array(opts.n);
    for (let i = 0; i < opts.n; i++) handles[i] = setTimeout(fn, 60000 + (i % 10));
  } else {
    // one argument each
    for (let i = 0; i < opts.n; i++) setTimeout(fn, 60000 + (i % 10), i);
  }
  out.perTimer = (heap() - base) / opts.n;
  if (handles !== null) out.kept = handles.length;
  return out;
}

/* position: 'native', 'preload' (node -r) or 'require' (required on the child's first line) */
function runPendingChild(position, scenario, opts) {
  const args = ['--expose-gc'];
  if (position === 'preload') args.push('-r', path.join(REPO, 'index.js'));
  args.push(__filename, '--section', 'pending-child', '--scenario', scenario, '--n', String(opts.n), '--json');
  if (position === 'require') args.push('--require-qtimers');
  const res = childProcess.spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (res.status !== 0) throw new Error('pending-child failed: ' + res.stderr);
  const lines = res.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

async function pending(opts) {
  const r = { n: opts.n };
  for (const scenario of ['timers', 'handles', 'argument']) {
    const native = runPendingChild('native', scenario, opts);
    const qtimers = runPendingChild('preload', scenario, opts);
    const required = runPendingChild('require', scenario, opts);
    if (native.impl !== 'native' || qtimers.impl !== 'qtimers') throw new Error('pending: the preload did not take');
    if (required.impl !== 'qtimers') throw new Error('pending: the require on the first line did not take');
    r[scenario] = {
      native: native.perTimer, qtimers: qtimers.perTimer, ratio: qtimers.perTimer / native.perTimer,
      required: required.perTimer, requiredRatio: required.perTimer / native.perTimer,
    };
  }
  r.ratio = r.timers.ratio;
  r.requiredRatio = r.timers.requiredRatio;
  return r;
}

// ---------------------------------------------------------------- main

const SECTIONS = { setclear, 'setclear-sync': setclearSync, refresh, unreachable, pending, 'pending-child': pendingChild };

function print(name, r) {
  switch (name) {
    case 'setclear':
      console.log(`setclear (${r.impl}): ${r.cycles} set/clear cycles with ${r.liveTimers} timers pending: live set ${MB(r.liveHeap)}, ` +
        `largest heap after gc ${MB(r.worstHeap)} = ${r.ratio.toFixed(3)}x (bound 2x), ${r.seconds.toFixed(1)} s`);
      break;
    case 'setclear-sync':
      console.log(`setclear-sync (${r.impl}): ${r.cycles} immediate set/clear cycles in one synchronous loop, the older of each pair cleared first: ` +
        `heap +${MB(r.growthBeforeYield)} before the program yields, +${MB(r.growthAfterYield)} after (reported, not bounded)`);
      break;
    case 'refresh':
      console.log(`refresh (${r.impl}): ${r.calls} refresh() calls on ${r.liveTimers} pending 60 s timeouts: live set ${MB(r.liveHeap)}, ` +
        `largest heap after gc ${MB(r.worstHeap)} = ${r.ratio.toFixed(3)}x (bound 2x), ${r.seconds.toFixed(1)} s`);
      break;
    case 'unreachable':
      for (const [k, v] of Object.entries(r.results)) {
        if (typeof v === 'object') console.log(`unreachable (${r.impl}): cleared/ran ${k}: callback ${v.callbackCollected ? 'collected' : 'STILL REACHABLE'}, arguments ${v.argsCollected ? 'collected' : 'STILL REACHABLE'}` +
          ('storeCollected' in v ? `, store ${v.storeCollected ? 'collected' : 'STILL REACHABLE'}` : ''));
      }
      break;
    case 'pending': {
      const line = (x) => `native ${x.native.toFixed(1)} B, qtimers ${x.qtimers.toFixed(1)} B = ${x.ratio.toFixed(3)} of native` +
        ` (required on the first line: ${x.required.toFixed(1)} B = ${x.requiredRatio.toFixed(3)})`;
      console.log(`pending: ${r.n} pending timeouts, heap per timer: ${line(r.timers)} (bound 0.5)`);
      console.log(`         the program also keeping the handles in an array: ${line(r.handles)}`);
      console.log(`         with one argument each: ${line(r.argument)}`);
      break;
    }
    default:
      console.log(name, JSON.stringify(r));
  }
}

async function main() {
  if (typeof global.gc !== 'function') {
    // re-run with --expose-gc
    const res = childProcess.spawnSync(process.execPath, ['--expose-gc', __filename].concat(process.argv.slice(2)), { stdio: 'inherit' });
    process.exit(res.status === null ? 1 : res.status);
  }
  const argv = process.argv.slice(2);
  const opts = Object.assign({ impl: 'qtimers' }, FULL);
  let section = null;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--small') Object.assign(opts, SMALL);
    else if (a === '--section') section = argv[++i];
    else if (a === '--json') json = true;
    else if (a === '--impl') opts.impl = argv[++i];
    else if (/^--(cycles|timers|calls|n)$/.test(a)) opts[a.slice(2)] = Number(argv[++i]);
    else if (a === '--scenario') opts.scenario = argv[++i];
    else if (a === '--leak') opts.leak = true;
    else if (a === '--retain') opts.retain = true;
    else if (a === '--require-qtimers') continue;     // done on the first line
    else {
      console.error('usage: node --expose-gc test/memory/bounds.js [--small] [--section setclear|setclear-sync|refresh|unreachable|pending] [--impl native|qtimers] [--cycles N] [--timers N] [--calls N] [--n N] [--leak] [--retain] [--json]');
      process.exit(2);
    }
  }
  const names = section ? [section] : ['setclear', 'setclear-sync', 'refresh', 'unreachable', 'pending'];
  const all = { node: process.version };
  for (const name of names) {
    if (!SECTIONS[name]) throw new Error('no section ' + name);
    const r = await SECTIONS[name](opts);
    all[name] = r;
    if (!json) print(name, r);
  }
  if (json) console.log(JSON.stringify(section ? all[section] : all));
  else console.log(`node ${process.version}`);
  // the pending children leave a million 60 s timers behind; nothing else is left to wait for
  if (section === 'pending-child') process.exit(0);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err && err.stack || err);
    process.exit(1);
  });
}
