/*
 * broken: deliberately wrong timers, each breaking one guarantee, to prove that the property
 * checkers notice (test/system/test-property.js runs them through child.js, mode 'broken').
 *
 * Each is Node's timers with one fault:
 *   early          setTimeout/setInterval wait half their delay               -> not-early
 *   lost-clear     clearTimeout/clearInterval do nothing                     -> cleared
 *   double-fire    every timeout runs its callback twice                     -> exactly-once
 *   lose-some      every 7th timeout never runs                              -> exactly-once
 *   lifo           immediates queued together run newest first               -> immediate-fifo
 *   jitter         every other timeout waits 4 ms longer                     -> timeout-fifo
 *   batched        immediates queued together run in one loop, no ticks between -> ticks
 *   sync           setImmediate runs its callback at once                    -> no-reentry
 *   no-this        callbacks run with this === undefined                     -> this
 *   drop-args      callbacks get no arguments                                -> args
 *   no-store       callbacks run outside their AsyncLocalStorage store       -> store
 *   swallow        a throwing callback's error is caught and dropped         -> uncaught
 *   hasref         hasRef() always says true                                 -> hasRef
 *   same-turn      an immediate queued by an immediate runs in the same turn -> turn
 *   all-unref      every timer is unref'd: the process exits too soon        -> exit
 *
 * Loaded by qnit with the whole test/ tree: exports nothing enumerable, does nothing on require.
 */
'use strict';

const { AsyncResource } = require('async_hooks');

const BROKEN = {
  early: 'not-early', 'lost-clear': 'cleared', 'double-fire': 'exactly-once', 'lose-some': 'exactly-once',
  lifo: 'immediate-fifo', jitter: 'timeout-fifo', batched: 'ticks', sync: 'no-reentry', 'no-this': 'this',
  'drop-args': 'args', 'no-store': 'store', swallow: 'uncaught', hasref: 'hasRef', 'same-turn': 'turn',
  'all-unref': 'exit',
};

function makeBroken(kind, timers) {
  if (!Object.prototype.hasOwnProperty.call(BROKEN, kind)) throw new Error('no such broken timers: ' + kind);
  const api = {
    setTimeout: timers.setTimeout, clearTimeout: timers.clearTimeout,
    setInterval: timers.setInterval, clearInterval: timers.clearInterval,
    setImmediate: timers.setImmediate, clearImmediate: timers.clearImmediate,
  };
  // wrap callbacks; `wrap(cb, handleRef)` returns what the native timer gets
  const wrapAll = (wrap) => {
    for (const name of ['setTimeout', 'setInterval']) {
      api[name] = function (cb, delay, ...args) {
        const ref = {};
        ref.handle = timers[name](wrap(cb, ref), delay, ...args);
        return ref.handle;
      };
    }
    api.setImmediate = function (cb, ...args) {
      const ref = {};
      ref.handle = timers.setImmediate(wrap(cb, ref), ...args);
      return ref.handle;
    };
  };
  let count = 0;
  switch (kind) {
    case 'early':
      api.setTimeout = (cb, delay, ...args) => timers.setTimeout(cb, Number(delay) / 2, ...args);
      api.setInterval = (cb, delay, ...args) => timers.setInterval(cb, Number(delay) / 2, ...args);
      break;
    case 'lost-clear':
      api.clearTimeout = () => {};
      api.clearInterval = () => {};
      break;
    case 'double-fire':
      api.setTimeout = function (cb, delay, ...args) {
        return timers.setTimeout(function () { cb.apply(this, arguments); cb.apply(this, arguments); }, delay, ...args);
      };
      break;
    case 'lose-some':
      api.setTimeout = function (cb, delay, ...args) {
        return timers.setTimeout(++count % 7 === 0 ? () => {} : cb, delay, ...args);
      };
      break;
    case 'jitter':
      api.setTimeout = function (cb, delay, ...args) {
        const d = Number(delay) >= 1 ? Math.trunc(Number(delay)) : 1;
        return timers.setTimeout(cb, ++count % 2 === 0 ? d + 4 : d, ...args);
      };
      break;
    case 'lifo': case 'batched': case 'same-turn': {
      // immediates kept in our own queue, drained by one native immediate
      let queue = [];
      let scheduled = false;
      let draining = false;
      const drain = () => {
        scheduled = false;
        draining = true;
        try {
          for (;;) {
            const batch = queue;
            queue = [];
            if (kind === 'lifo') batch.reverse();
            for (let i = 0; i < batch.length; i++) {
              const h = batch[i];
              if (h.cleared) continue;
              h.cleared = true;
              if (kind === 'batched') h.fn.apply(h, h.args);
              else {
                // run each in its own native immediate-like step: ticks drain between
                h.fn.apply(h, h.args);
                process._tickCallback();
              }
            }
            if (kind !== 'same-turn' || queue.length === 0) break;
          }
        } finally {
          draining = false;
          if (queue.length > 0 && !scheduled) { scheduled = true; timers.setImmediate(drain); }
        }
      };
      const proto = { ref() { return this; }, unref() { return this; }, hasRef() { return !this.cleared; } };
      api.setImmediate = function (fn, ...args) {
        const h = Object.create(proto);
        h.fn = fn; h.args = args; h.cleared = false;
        queue.push(h);
        if (!scheduled && !draining) { scheduled = true; timers.setImmediate(drain); }
        return h;
      };
      api.clearImmediate = (h) => { if (h) h.cleared = true; };
      break;
    }
    case 'sync': {
      const proto = { ref() { return this; }, unref() { return this; }, hasRef() { return false; } };
      api.setImmediate = function (fn, ...args) {
        const h = Object.create(proto);
        fn.apply(h, args);
        return h;
      };
      api.clearImmediate = () => {};
      break;
    }
    case 'no-this':
      wrapAll((cb) => function () { return cb.apply(undefined, arguments); });
      break;
    case 'drop-args':
      wrapAll((cb, ref) => function () { return cb.call(ref.handle); });
      break;
    case 'no-store': {
      const root = new AsyncResource('broken-root');
      wrapAll((cb, ref) => function () { return root.runInAsyncScope(cb, ref.handle, ...arguments); });
      break;
    }
    case 'swallow':
      wrapAll((cb, ref) => function () { try { return cb.apply(ref.handle, arguments); } catch (err) { return undefined; } });
      break;
    case 'hasref':
      wrapAll((cb, ref) => function () { return cb.apply(ref.handle, arguments); });
      for (const name of ['setTimeout', 'setInterval', 'setImmediate']) {
        const set = api[name];
        api[name] = function () {
          const h = set.apply(null, arguments);
          h.hasRef = () => true;
          return h;
        };
      }
      break;
    case 'all-unref':
      for (const name of ['setTimeout', 'setInterval', 'setImmediate']) {
        api[name] = function () { return timers[name].apply(null, arguments).unref(); };
      }
      break;
    default:
      break;
  }
  return api;
}

Object.defineProperties(module.exports, {
  BROKEN: { value: BROKEN },
  makeBroken: { value: makeBroken },
});
