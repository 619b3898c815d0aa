'use strict';
// Async context: a callback sees the AsyncLocalStorage store and async_hooks parentage of the
// code that scheduled it, exactly as with native timers.  Each program runs natively and with
// qtimers in separate processes, and the observations must be identical.

const child = require('../helpers/child');
const { runJson } = child;

function both(t, source) {
  const native = runJson(source, { qtimers: false });
  const ours = runJson(source);
  t.equal(native.status, 0, native.stderr);
  t.equal(ours.status, 0, ours.stderr);
  t.deepEqual(ours.json, native.json);
  return ours.json;
}

/* natively, and with qtimers loaded by the program itself where it reads LATE_LOAD */
function lateLoad(t, source) {
  const native = runJson(source, { qtimers: false });
  const ours = runJson(source, { qtimers: false, expect: 'qtimers', env: { LATE_LOAD: '1' } });
  t.equal(native.status, 0, native.stderr);
  t.equal(ours.status, 0, ours.stderr);
  t.deepEqual(ours.json, native.json);
  return ours.json;
}

module.exports = {
  'AsyncLocalStorage: each callback sees the store current when it was scheduled': function(t) {
    const seen = both(t, `
      const { AsyncLocalStorage } = require('async_hooks');
      const als = new AsyncLocalStorage();
      const log = [];
      const see = (what) => log.push(what + ':' + JSON.stringify(als.getStore()));
      setTimeout(() => see('before-any-store'), 1);
      als.run({ id: 1 }, () => {
        setTimeout(() => see('timeout'), 2);
        setImmediate(() => see('immediate'));
        setImmediate((a, b) => see('immediate-args-' + a + b), 'x', 'y');
        let n = 0;
        const iv = setInterval(() => { see('interval'); if (++n === 2) clearInterval(iv); }, 1);
        als.run({ id: 2 }, () => setTimeout(() => {
          see('nested');
          setTimeout(() => see('grandchild'), 1);
          als.enterWith({ id: 3 });
          setImmediate(() => see('entered'));
        }, 3));
      });
      setImmediate(() => see('outside'));
      process.on('exit', () => console.log(JSON.stringify(log.sort())));
    `);
    t.ok(seen.includes('timeout:{"id":1}'), JSON.stringify(seen));
    t.ok(seen.includes('grandchild:{"id":2}'), JSON.stringify(seen));
    t.ok(seen.includes('entered:{"id":3}'), JSON.stringify(seen));
    t.ok(seen.includes('outside:undefined'), JSON.stringify(seen));
    t.done();
  },

  'callbacks of one drain with the same store see it, whatever the ones before them entered': function(t) {
    // a drain enters a batch's shared store once; everything that can change the current store
    // between two of its callbacks must not leak into the next one
    const seen = both(t, `
      const { AsyncLocalStorage, createHook } = require('async_hooks');
      const als = new AsyncLocalStorage();
      const log = [];
      let kind;
      const see = (what) => log.push(kind + ' ' + what + ':' + als.getStore());
      als.run('batch', () => {
        for (const make of [(f) => setImmediate(() => { kind = 'immediate'; f(); }), (f) => setTimeout(() => { kind = 'timeout'; f(); }, 1)]) {
          make(() => { see('first'); als.enterWith('entered-by-first'); });
          make(() => see('after-enterWith'));
          make(() => { process.nextTick(() => als.enterWith('tick')); Promise.resolve().then(() => als.enterWith('job')); });
          make(() => see('after-tick-and-job'));
          make(() => { als.run('run', () => see('inside-run')); als.exit(() => see('inside-exit')); });
          make(() => see('after-run-and-exit'));
          make(() => { createHook({ init() {} }).enable(); als.enterWith('entered-with-hooks'); });
          make(() => see('after-hook-enabled'));
        }
      });
      process.on('exit', () => console.log(JSON.stringify(log.sort())));   // immediates and timeouts may interleave
    `);
    t.ok(seen.includes('immediate after-enterWith:batch'), JSON.stringify(seen));
    t.ok(seen.includes('timeout after-hook-enabled:batch'), JSON.stringify(seen));
    t.done();
  },

  'a timer scheduled by a callback gets the store current where it is scheduled, in every nested scope': function(t) {
    // a callback's own timers share its frame without reading it again (lib/context.js,
    // runningFrame): every way the current store can differ from the callback's must be seen
    const seen = both(t, `
      const { AsyncLocalStorage, AsyncResource } = require('async_hooks');
      const { EventEmitterAsyncResource } = require('events');
      const als = new AsyncLocalStorage();
      const log = [];
      let kind;
      const later = (what) => {
        const label = kind + ' ' + what;
        const see = (how) => log.push(label + ' ' + how + ':' + als.getStore());
        setImmediate(() => see('immediate'));
        setTimeout(() => see('timeout'), 1);
      };
      const bound = als.run('bound', () => AsyncResource.bind(() => later('in-bound')));
      const snapshot = als.run('snapshot', () => AsyncLocalStorage.snapshot());
      const resource = als.run('resource', () => new AsyncResource('X'));
      const emitter = als.run('emitter', () => new EventEmitterAsyncResource({ name: 'E' }));
      emitter.on('go', () => later('in-emit'));
      als.run('cb', () => {
        for (const make of [(f) => setImmediate(() => { kind = 'immediate'; f(); }), (f) => setTimeout(() => { kind = 'timeout'; f(); }, 1)]) {
          // a promise job of another store, run after the callback that resolves it
          let resolve;
          als.run('job', () => new Promise((r) => { resolve = r; }).then(() => later('in-job-of-another-store')));
          make(resolve);
          make(() => {
            later('own');
            bound();
            snapshot(() => later('in-snapshot'));
            resource.runInAsyncScope(() => later('in-resource'));
            emitter.emit('go');
            later('own-again');
            als.run('run', () => later('in-run'));
            later('after-run');
            als.exit(() => later('in-exit'));
            process.nextTick(() => later('in-tick'));
            Promise.resolve().then(() => later('in-job'));
            als.enterWith('entered');
            later('after-enterWith');
          });
        }
      });
      process.on('exit', () => console.log(JSON.stringify(log.sort())));
    `);
    t.ok(seen.includes('immediate in-bound timeout:bound'), JSON.stringify(seen));
    for (const kind of ['immediate', 'timeout']) {
      t.ok(seen.includes(kind + ' in-job-of-another-store timeout:job'), JSON.stringify(seen));
    }
    t.ok(seen.includes('timeout after-enterWith immediate:entered'), JSON.stringify(seen));
    t.done();
  },

  'a store is let go once its timers are cleared or have run, by the native timers that ran them too': function(t) {
    // qtimers' drivers keep the frame of the callback they run first (lib/context.js,
    // asDriverIn and frameToDrive): never beyond that callback's timer
    const source = `
      const { AsyncLocalStorage } = require('async_hooks');
      const als = new AsyncLocalStorage();
      const refs = {};
      const collected = {};
      function schedule(name, make) {
        const store = { name };
        refs[name] = new WeakRef(store);
        als.run(store, make);
      }
      // each store checked once, in the phase that made it
      function collect() {
        global.gc();
        for (const name of Object.keys(refs)) if (!(name in collected)) collected[name] = refs[name].deref() === undefined;
      }
      // the only timeout, cleared: checked before anything fires
      schedule('timeout cleared', () => clearTimeout(setTimeout(() => {}, 1000)));
      schedule('immediate cleared', () => clearImmediate(setImmediate(() => {})));
      schedule('immediate ran', () => setImmediate(() => {}));
      setImmediate(() => setImmediate(() => {
        collect();
        setTimeout(() => {
          schedule('timeout ran', () => setTimeout(() => {}, 1));
          schedule('interval cleared in a callback', () => { const iv = setInterval(() => clearInterval(iv), 1); });
          schedule('timeout cleared in a callback', () => clearTimeout(setTimeout(() => {}, 1)));
          setTimeout(() => setImmediate(() => {
            collect();
            console.log(JSON.stringify(collected));
          }), 20);
        }, 1);
      }));
    `;
    const native = runJson(source, { qtimers: false, nodeArgs: ['--expose-gc'] });
    const ours = runJson(source, { nodeArgs: ['--expose-gc'] });
    t.equal(native.status, 0, native.stderr);
    t.equal(ours.status, 0, ours.stderr);
    t.deepEqual(ours.json, native.json);
    t.ok(Object.values(ours.json).every(Boolean), JSON.stringify(ours.json));
    t.done();
  },

  'two AsyncLocalStorage instances, one of them first used after some timers were made': function(t) {
    both(t, `
      const { AsyncLocalStorage } = require('async_hooks');
      const a = new AsyncLocalStorage();
      const b = new AsyncLocalStorage();
      const log = [];
      const see = (what) => log.push(what + ':' + a.getStore() + '/' + b.getStore());
      a.run('a1', () => {
        setTimeout(() => see('only-a'), 2);
        b.run('b1', () => {
          setTimeout(() => see('both'), 1);
          setImmediate(() => { see('imm-both'); a.enterWith('a2'); setTimeout(() => see('entered-a2'), 1); });
          a.run(undefined, () => setImmediate(() => see('a-cleared')));
        });
      });
      setImmediate(() => see('none'));
      process.on('exit', () => console.log(JSON.stringify(log.sort())));
    `);
    t.done();
  },

  'a callback made before any store sees none, even right after one that had a store': function(t) {
    both(t, `
      const log = [];
      const early = () => log.push('early:' + (als && als.getStore()));
      setTimeout(early, 2);
      setTimeout(early, 2, 'with an argument');
      const { AsyncLocalStorage } = require('async_hooks');
      const als = new AsyncLocalStorage();
      als.run('x', () => setTimeout(() => log.push('x:' + als.getStore()), 1));
      const end = Date.now() + 4; while (Date.now() < end);   // all three due in one batch
      process.on('exit', () => console.log(JSON.stringify(log.sort())));
    `);
    t.done();
  },

  'a fired timeout revived by refresh() gets the store current at the refresh': function(t) {
    both(t, `
      let n = 0, seen;
      const tm = setTimeout(() => {
        if (++n === 2) { seen = als.getStore(); return; }
        setImmediate(() => als.run('B', () => tm.refresh()));
      }, 1);
      const { AsyncLocalStorage } = require('async_hooks');
      const als = new AsyncLocalStorage();
      process.on('exit', () => console.log(JSON.stringify(seen)));
    `);
    t.done();
  },

  'AsyncLocalStorage first used after timers were already scheduled': function(t) {
    both(t, `
      const log = [];
      setTimeout(() => log.push('early:' + JSON.stringify(als.getStore())), 5);
      const { AsyncLocalStorage } = require('async_hooks');
      const als = new AsyncLocalStorage();
      als.run('s', () => setTimeout(() => log.push('late:' + als.getStore()), 1));
      setImmediate(() => log.push('imm:' + JSON.stringify(als.getStore())));
      process.on('exit', () => console.log(JSON.stringify(log.sort())));
    `);
    t.done();
  },

  // qtimers' own native drivers are async resources too, so hooks also see their inits: the
  // types seen are compared as a set, the parentage of each user callback exactly.
  'async_hooks: init types and trigger ids match, before/after wrap each callback': function(t) {
    both(t, `
      const ah = require('async_hooks');
      const types = {};
      const inside = [];
      const ids = new Map();
      ah.createHook({
        init(id, type, trigger) { if (type === 'Timeout' || type === 'Immediate') { types[type] = (types[type] || 0) + 1; ids.set(id, trigger); } },
      }).enable();
      const outer = ah.executionAsyncId();
      setTimeout(() => {
        const me = ah.executionAsyncId();
        inside.push('timeout trigger is creator: ' + (ids.get(me) === outer));
        setImmediate(() => {
          inside.push('immediate trigger is the timeout: ' + (ids.get(ah.executionAsyncId()) === me));
          inside.push('triggerAsyncId(): ' + (ah.triggerAsyncId() === me));
        });
      }, 1);
      process.on('exit', () => console.log(JSON.stringify({ inside, types: Object.keys(types).sort() })));
    `);
    t.done();
  },

  'trackAsyncContext() carries a store entered before qtimers was loaded': function(t) {
    const res = runJson(`
      const { AsyncLocalStorage } = require('async_hooks');
      const als = new AsyncLocalStorage();
      const log = [];
      als.run('outer', () => {
        const q = require(ROOT);
        q.trackAsyncContext();
        setTimeout(() => log.push('timeout:' + als.getStore()), 1);
        setImmediate(() => log.push('immediate:' + als.getStore()));
      });
      setImmediate(() => log.push('outside:' + als.getStore()));
      process.on('exit', () => console.log(JSON.stringify(log.sort())));
    `, { qtimers: false, expect: 'qtimers' });
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json, ['immediate:outer', 'outside:undefined', 'timeout:outer']);
    t.done();
  },

  'a callback that throws leaves no store behind: the next callbacks see their own': function(t) {
    both(t, `
      const { AsyncLocalStorage } = require('async_hooks');
      const als = new AsyncLocalStorage();
      const log = [];
      const see = (what) => log.push(what + ':' + als.getStore());
      process.on('uncaughtException', () => {});
      als.run('a', () => setTimeout(() => { see('throws-in-timeout'); throw new Error('timeout'); }, 1));
      setTimeout(() => see('after-timeout'), 1);
      als.run('b', () => setImmediate(() => { see('throws-in-immediate'); throw new Error('immediate'); }));
      setImmediate(() => see('after-immediate'));
      als.run('c', () => setImmediate(() => see('in-c')));
      process.on('exit', () => console.log(JSON.stringify(log.sort())));
    `);
    t.done();
  },

  'domains: an error in a callback scheduled in a domain goes to that domain': function(t) {
    both(t, `
      const domain = require('domain');
      const log = [];
      const d = domain.create();
      d.on('error', (err) => log.push('domain got ' + err.message));
      d.run(() => {
        setTimeout(() => { throw new Error('from timeout'); }, 1);
        setImmediate(() => { throw new Error('from immediate'); });
      });
      setTimeout(() => log.push('outside domain: ' + (process.domain == null)), 5);
      process.on('exit', () => console.log(JSON.stringify(log.sort())));
    `);
    t.done();
  },

  // Node 20's AsyncLocalStorage keeps stores on async resources, Node 24's in async context
  // frames, and the two differ here; qtimers must follow the Node it runs on.
  'AsyncLocalStorage: disable(), enterWith() inside an interval, exit(), as this Node does': function(t) {
    both(t, `
      const { AsyncLocalStorage } = require('async_hooks');
      const log = [];
      const a = new AsyncLocalStorage();
      a.run('pending', () => setTimeout(() => log.push('disabled-before-run:' + a.getStore()), 5));
      a.disable();
      const b = new AsyncLocalStorage();
      b.run('initial', () => {
        let n = 0;
        const iv = setInterval(() => {
          log.push('interval tick ' + n + ':' + b.getStore());
          b.enterWith('set-in-tick-' + n);
          if (++n === 3) clearInterval(iv);
        }, 1);
        b.exit(() => setImmediate(() => log.push('made-in-exit:' + b.getStore())));
      });
      const c = new AsyncLocalStorage();
      c.run('c1', () => setTimeout(() => { c.disable(); setImmediate(() => log.push('after-disable-in-callback:' + c.getStore())); }, 1));
      process.on('exit', () => console.log(JSON.stringify(log.sort())));
    `);
    t.done();
  },

  // a store may have been entered in a continuation qtimers cannot see: where stores are in
  // frames every timer carries its frame from the start (frames mode); before frames, the
  // store's hook was on before qtimers loaded and counts as the program's (resources mode)
  'a store entered before qtimers loads, with no call to trackAsyncContext()': function(t) {
    const source = `
      const { AsyncLocalStorage } = require('async_hooks');
      const als = new AsyncLocalStorage();
      const log = [];
      const see = (what) => log.push(what + ':' + als.getStore());
      // a continuation made in the store before qtimers loads, that schedules after
      als.run('continuation', () => setTimeout(() => {
        setTimeout(() => see('timeout-from-continuation'), 1);
        setImmediate(() => see('immediate-from-continuation'), 'an argument');
      }, 5));
      let mode = null;
      als.run('outer', () => {
        LOAD()
        setTimeout(() => see('timeout'), 1);
        setImmediate(() => see('immediate'));
        setInterval(function () { see('interval'); clearInterval(this); }, 1);
      });
      setImmediate(() => see('outside'));
      process.on('exit', () => console.log(JSON.stringify({ log: log.sort(), mode })));
    `;
    const native = runJson(source.replace('LOAD()', ''), { qtimers: false });
    const ours = runJson(source.replace('LOAD()', 'require(ROOT); mode = require(ROOT + "/lib/context").state.mode;'), { qtimers: false, expect: 'qtimers' });
    t.equal(native.status, 0, native.stderr);
    t.equal(ours.status, 0, ours.stderr);
    t.deepEqual(ours.json.log, native.json.log);
    t.ok(native.json.log.includes('immediate-from-continuation:continuation'), JSON.stringify(native.json));
    const frames = typeof require('async_hooks').AsyncLocalStorage.prototype._enable !== 'function';
    t.equal(ours.json.mode, frames ? 1 : 2, 'frames mode where stores are in frames, resources before');
    t.done();
  },

  'a store entered before qtimers loads, qtimers loaded in a later callback': function(t) {
    lateLoad(t, `
      const { AsyncLocalStorage } = require('async_hooks');
      const als = new AsyncLocalStorage();
      const log = [];
      als.enterWith('entered-at-top');
      setTimeout(() => {
        if (process.env.LATE_LOAD) require(ROOT);
        setTimeout(() => log.push('timeout:' + als.getStore()), 1);
        setImmediate(() => log.push('immediate:' + als.getStore()));
      }, 1);
      process.on('exit', () => console.log(JSON.stringify(log.sort())));
    `);
    t.done();
  },

  // where Node keeps stores in async context frames (24+), this is what lets qtimers skip
  // carrying a context until the program enters a store: in each of the positions the README
  // gives, no store can have been entered before qtimers loaded
  'loaded first in any position, tracking waits for the first store, which every callback then sees': function(t) {
    const dir = require('path').join(__dirname, '..', 'fixtures', 'context');
    const file = require('path').join(dir, 'first-store.js');
    const run = (program, options) => {
      const res = child.runFileJson(program, Object.assign({ args: [child.ROOT], cwd: child.ROOT }, options));
      t.equal(res.status, 0, res.stderr);
      return res.json;
    };
    const native = run(file, { qtimers: false });
    t.equal(native.seen.length, 7);
    const positions = {
      'node -r qtimers': run(file),
      'node --import qtimers/register': run(file, { qtimers: false, expect: 'qtimers', nodeArgs: ['--import', 'qtimers/register'] }),
      'require(\'qtimers\') on the first line': run(file, { qtimers: false, expect: 'qtimers', args: [child.ROOT, 'require'] }),
      'import \'qtimers/install\' on the first line': run(require('path').join(dir, 'first-store.mjs'), { qtimers: false, expect: 'qtimers' }),
    };
    for (const [position, ours] of Object.entries(positions)) {
      t.deepEqual(ours.seen, native.seen, position + ': every callback saw the store it was scheduled in');
      t.equal(ours.modeBefore, 0, position + ': no context carried before the first store');
    }
    t.done();
  },

  'loading and using qtimers enables no async hook and enters no store, as natively': function(t) {
    // any enabled hook turns V8's promise hooks on, and every promise of the process stays about
    // twice as slow even after it is disabled (an earlier qtimers entered a store of its own at
    // load to learn which hook was Node's)
    const fixture = require('path').join(__dirname, '..', 'fixtures', 'context', 'no-hooks.js');
    const native = child.runFileJson(fixture, { qtimers: false, args: ['native'] });
    const required = child.runFileJson(fixture, { qtimers: false, expect: 'qtimers', args: ['require', child.ROOT] });
    const none = { enable: 0, run: 0, enterWith: 0 };
    t.equal(native.status, 0, native.stderr);
    t.deepEqual(native.json, none, 'natively');
    t.equal(required.status, 0, required.stderr);
    t.deepEqual(required.json, none, 'qtimers required by the program');
    t.done();
  },

  'a program that made Error.prepareStackTrace read-only can still enter stores and enable hooks': function(t) {
    const res = child.runJson(`
      Object.defineProperty(Error, 'prepareStackTrace', { value: undefined, writable: false });
      Error.stackTraceLimit = 7;
      require(ROOT);
      const { AsyncLocalStorage, createHook } = require('async_hooks');
      const als = new AsyncLocalStorage();
      const seen = [];
      createHook({ init() {} }).enable();
      als.run('store', () => setTimeout(() => {
        seen.push(als.getStore(), Error.stackTraceLimit);
        console.log(JSON.stringify(seen));
      }, 1));
    `, { qtimers: false, expect: 'qtimers' });
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json, ['store', 7]);
    t.done();
  },
};
