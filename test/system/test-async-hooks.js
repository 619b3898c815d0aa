'use strict';
// async_hooks-based trackers and domains, whichever was set up first: hooks created before
// qtimers loads and enabled after it, hooks enabled before it loads, the domain module required
// before it.  Each program runs natively and with qtimers (loaded where the program says, by
// require(ROOT), or first with -r) and must print the same.  qtimers' own driver timers are
// async resources too, so trackers here look only at the resources they can reach from the
// program's own code (its executionAsyncId, the ids its callbacks run under).

const { runJson } = require('../helpers/child');

// natively, with qtimers loaded by the program where LOAD() stands, and with qtimers preloaded
function allThree(t, source) {
  const native = runJson(source.replace('LOAD()', ''), { qtimers: false });
  const after = runJson(source.replace('LOAD()', 'require(ROOT)'), { qtimers: false, expect: 'qtimers' });
  const preloaded = runJson(source.replace('LOAD()', ''));
  t.equal(native.status, 0, native.stderr);
  t.ok(native.json !== undefined, native.stdout);
  t.equal(after.status, native.status, after.stderr);
  t.deepEqual(after.json, native.json, 'qtimers loaded by the program');
  t.equal(preloaded.status, native.status, preloaded.stderr);
  t.deepEqual(preloaded.json, native.json, 'qtimers preloaded');
  return native.json;
}

// A tracker of the usual kind: each resource's type and trigger at init, and the stack of
// execution ids around before/after, checked against executionAsyncId()/triggerAsyncId().
const TRACKER = `
  const ah = require('async_hooks');
  const fs = require('fs');
  const inits = new Map();
  const events = [];
  const hook = ah.createHook({
    init(id, type, trigger) { inits.set(id, { type, trigger }); },
    before(id) { events.push(['before', id]); },
    after(id) { events.push(['after', id]); },
    destroy(id) { events.push(['destroy', id]); },
  });
  const log = [];
  // what a callback can tell about its own resource
  function whoAmI(label, scheduler) {
    const me = ah.executionAsyncId();
    const info = inits.get(me) || {};
    const balanced = events.some((e) => e[0] === 'before' && e[1] === me);
    log.push(label + ' type=' + info.type + ' trigger-is-scheduler=' + (info.trigger === scheduler) +
      ' triggerAsyncId()=' + (ah.triggerAsyncId() === scheduler) + ' in-before=' + balanced);
    return me;
  }
  function schedule() {
    const top = ah.executionAsyncId();
    setTimeout(function t1() {
      const me = whoAmI('timeout', top);
      setImmediate(function i1() {
        const imm = whoAmI('immediate-in-timeout', me);
        setTimeout(function t2() { whoAmI('timeout-in-immediate', imm); }, 1);
      });
      let n = 0;
      const iv = setInterval(function iv1() { whoAmI('interval-' + n, me); if (++n === 2) clearInterval(iv); }, 1);
    }, 1);
    setImmediate(function i0() { whoAmI('immediate', top); }, 'with an argument');
    require('timers/promises').setTimeout(2).then(() => log.push('promise resumed'));
  }
  process.on('exit', () => {
    hook.disable();
    // every id a callback ran under was destroyed after its last after
    console.log(JSON.stringify(log.sort()));
  });
`;

module.exports = {
  'a hook created before qtimers loads and enabled after it sees each callback in its own resource': function(t) {
    const seen = allThree(t, TRACKER + `
      LOAD()
      hook.enable();
      schedule();
    `);
    t.ok(seen.includes('timeout type=Timeout trigger-is-scheduler=true triggerAsyncId()=true in-before=true'), JSON.stringify(seen));
    t.done();
  },

  'a hook enabled before qtimers loads': function(t) {
    allThree(t, TRACKER + `
      hook.enable();
      LOAD()
      schedule();
    `);
    t.done();
  },

  'a hook enabled from inside a callback': function(t) {
    allThree(t, TRACKER + `
      LOAD()
      setTimeout(() => { hook.enable(); schedule(); }, 1);
    `);
    t.done();
  },

  'destroy follows each callback, and a cleared timer is destroyed without running': function(t) {
    // the program's timers are the first resource each call makes (qtimers may make a driver after it)
    allThree(t, `
      const ah = require('async_hooks');
      LOAD()
      const mine = new Map();
      const log = [];
      let calling = false;
      ah.createHook({
        init(id, type) { if (calling) { calling = false; mine.set(id, type); } },
        destroy(id) { if (mine.has(id)) log.push('destroyed ' + mine.get(id) + (ran.has(id) ? ' after running' : ' unrun')); },
      }).enable();
      const make = (fn, ...args) => { calling = true; const h = fn(...args); calling = false; return h; };
      const ran = new Set();
      const mark = () => ran.add(ah.executionAsyncId());
      make(setTimeout, mark, 1); make(setImmediate, mark);
      clearTimeout(make(setTimeout, mark, 1)); clearImmediate(make(setImmediate, mark));
      const iv = make(setInterval, () => { mark(); clearInterval(iv); }, 1);
      // natively a destroy is emitted asynchronously: look once everything has settled
      setTimeout(() => setImmediate(() => console.log(JSON.stringify([mine.size, log.sort()]))), 20);
    `);
    t.done();
  },

  'AsyncResource.bind and AsyncLocalStorage.bind/snapshot inside and around timers': function(t) {
    allThree(t, `
      const { AsyncResource, AsyncLocalStorage } = require('async_hooks');
      LOAD()
      const als = new AsyncLocalStorage();
      const log = [];
      const see = (what) => log.push(what + ':' + als.getStore());
      let bound, snapshot;
      als.run('bound', () => {
        bound = AsyncResource.bind(() => see('AsyncResource.bind'));
        snapshot = AsyncLocalStorage.snapshot();
        setTimeout(AsyncLocalStorage.bind(() => see('AsyncLocalStorage.bind')), 1);
      });
      als.run('other', () => {
        setTimeout(bound, 1);
        setImmediate(() => snapshot(() => see('snapshot')));
        setImmediate(() => see('plain'));
      });
      process.on('exit', () => console.log(JSON.stringify(log.sort())));
    `);
    t.done();
  },

  'domain required before qtimers, domain made after: its error handler gets the throw': function(t) {
    const seen = allThree(t, `
      const domain = require('domain');
      LOAD()
      const log = [];
      const d1 = domain.create();
      const d2 = domain.create();
      d1.on('error', (err) => log.push('d1 got ' + err.message));
      d2.on('error', (err) => log.push('d2 got ' + err.message));
      d1.run(() => {
        setTimeout(() => { throw new Error('timeout in d1'); }, 1);
        setImmediate(() => { throw new Error('immediate in d1'); });
      });
      d2.run(() => {
        setTimeout(() => { throw new Error('timeout in d2'); }, 1);
        setImmediate(() => { log.push('d2 immediate: domain is d2 ' + (process.domain === d2)); throw new Error('immediate in d2'); });
      });
      setTimeout(() => log.push('unrelated timeout: no domain ' + (process.domain == null)), 1);
      setImmediate(() => log.push('unrelated immediate: no domain ' + (process.domain == null)));
      setTimeout(() => log.push('later: no domain ' + (process.domain == null)), 10);
      process.on('exit', () => console.log(JSON.stringify(log.sort())));
    `);
    t.ok(seen.includes('d2 got timeout in d2'), JSON.stringify(seen));
    t.done();
  },

  'domain required before qtimers: an uncaught throw outside any domain still ends the process as Node does': function(t) {
    const source = `
      require('domain');
      LOAD()
      const d = require('domain').create();
      d.on('error', () => console.log('wrong: the domain got it'));
      d.run(() => setTimeout(() => {}, 1));
      setTimeout(() => { throw new Error('outside'); }, 2);
    `;
    const native = runJson(source.replace('LOAD()', ''), { qtimers: false });
    const ours = runJson(source.replace('LOAD()', 'require(ROOT)'), { qtimers: false, expect: 'qtimers' });
    t.equal(native.status, 1);
    t.equal(ours.status, native.status, ours.stderr);
    t.equal(ours.stdout, native.stdout);
    t.ok(/Error: outside/.test(ours.stderr), ours.stderr);
    t.done();
  },
};
