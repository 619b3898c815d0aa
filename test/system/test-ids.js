'use strict';
// Numeric ids (`+t`, `${t}`): the same rules as native timers', ids unique across native timers
// and qtimers' (made before install and after uninstall, cleared from either side), and a timer
// converted to a number is collectable once it fired or was cleared.  Each program runs
// natively and with qtimers in child processes and the outcomes are compared.

const { runJson } = require('../helpers/child');

function compare(t, name, source, unlike) {
  const native = runJson(source, { qtimers: false, timeout: 30000 });
  const ours = runJson(source, { timeout: 30000 });
  t.equal(native.status, 0, native.stderr);
  t.equal(ours.status, 0, ours.stderr);
  t.ok(native.json !== undefined, `${name}: the native program printed its result`);
  // `unlike`: keys where this Node deliberately differs (checked by the caller)
  for (const key of unlike || []) delete native.json[key];
  t.deepEqual(Object.assign({}, ours.json, ...(unlike || []).map((key) => ({ [key]: undefined }))), Object.assign({}, native.json, ...(unlike || []).map((key) => ({ [key]: undefined }))), name);
  return ours.json;
}

const NODE_18 = Number(process.versions.node.split('.')[0]) < 20;

module.exports = {
  'ids follow Node\'s rules: registered at the first +t, let go when fired or cleared': function(t) {
    const result = compare(t, 'rules', `
      const out = {};
      let fires = 0;
      const a = setTimeout(function () {
        fires++;
        if (fires > 1) return;
        out.sameInCallback = +this === idA;
        setImmediate(() => {
          out.sameAfterFire = +a === idA;
          clearTimeout(idA);                  // fired: nothing to clear
          a.refresh();                        // revived: Node gives it a new id
          out.newIdAfterRevival = +a !== idA;
          clearTimeout(idA);                  // neither id clears the revived timer (Node >= 20)
          clearTimeout(+a);
        });
      }, 1);
      const idA = +a;
      out.string = \`\${a}\` === String(idA);
      out.number = typeof idA === 'number' && idA > 0;
      const b = setTimeout(() => { out.bFired = true; }, 1);
      clearTimeout(String(+b));               // by the id as a string
      const c = setTimeout(() => { out.cFired = true; }, 1);
      clearTimeout('0' + (+c));               // not the same property key: ignored
      let n = 0;
      const iv = setInterval(() => { if (++n === 2) clearInterval(+iv); }, 1);
      const d = setTimeout(() => {}, 1);
      const idD = +d;
      clearTimeout(d);
      out.sameAfterClear = +d === idD;
      setTimeout(() => { out.fires = fires; out.intervalRuns = n; console.log(JSON.stringify(out)); }, 40);
    `, NODE_18 ? ['fires'] : []);
    // Node 18 never lets a fired timer's id go (so its old id still clears the revived timer,
    // and every timer converted to a number leaks); qtimers does as Node 20 and later on all
    t.equal(result.fires, 2);
    t.equal(result.intervalRuns, 2);
    t.done();
  },

  'a timer first converted to a number after it fired is registered: clearTimeout(id) clears it, refresh() then runs nothing': function(t) {
    const result = compare(t, 'after firing', `
      const out = { fires: { a: 0, b: 0, c: 0 } };
      const a = setTimeout(() => { out.fires.a++; }, 1);
      const b = setTimeout(() => { out.fires.b++; }, 1);
      const c = setTimeout(() => { out.fires.c++; }, 1);
      setTimeout(() => {
        clearTimeout(+a);                     // first +a after it fired: registered, so cleared
        out.aCallback = typeof a._onTimeout;
        a.refresh();                          // cleared: stays so
        const idB = +b;                       // first +b after it fired: registered under idB
        b.refresh();                          // revived: a new id from now on
        out.bNewId = +b !== idB;
        clearTimeout(+b);                     // the new id is not registered: b stays pending
        out.bPending = b.hasRef() && b._idleTimeout === 1;
        setTimeout(() => {
          clearTimeout(idB);                  // the id registered before the revival still clears it
          b.refresh();
          c.refresh();                        // never converted: revived, fires again
          setTimeout(() => { console.log(JSON.stringify(out)); }, 20);
        }, 10);
      }, 10);
    `);
    t.deepEqual(result.fires, { a: 1, b: 2, c: 2 });
    t.done();
  },

  'a native timer made before install and a qtimers timer never share an id, either way': function(t) {
    // natively run, so that the early timer is really native; require(ROOT) installs qtimers
    const res = runJson(`
      const nodeTimers = require('timers');
      const out = [];
      const early = nodeTimers.setTimeout(() => out.push('native fired'), 20);
      const earlyId = +early;
      const q = require(ROOT);                      // installs, if the child was not preloaded
      const ours = [];
      for (let i = 0; i < 50; i++) ours.push(setTimeout(() => out.push('ours fired'), 10));
      const ourIds = ours.map((x) => +x);
      out.push('distinct ' + (new Set(ourIds.concat(earlyId)).size === 51));
      clearTimeout(earlyId);                        // qtimers' clearTimeout, the native id
      for (let i = 1; i < 50; i++) nodeTimers.clearTimeout(ourIds[i]);   // after install, also ours
      setTimeout(() => console.log(JSON.stringify(out)), 40);
    `, { qtimers: false, expect: 'qtimers', timeout: 30000 });
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json, ['distinct true', 'ours fired']);
    t.done();
  },

  'after uninstall: native ids and qtimers ids stay apart, handles and qtimers\' clearTimeout work': function(t) {
    // Node's own clearTimeout(id) cannot reach a qtimers timer (its id map is internal), so this
    // program clears qtimers' ids with qtimers' clearTimeout, which still works after uninstall
    const source = `
      const qtimers = require(ROOT + '/lib/install');
      const out = [];
      const mine = qtimers.setTimeout(() => out.push('qtimers timer fired'), 10);
      const mineId = +mine;
      const kept = qtimers.setTimeout(() => out.push('kept fired'), 10);
      qtimers.uninstall();
      const natives = [];
      for (let i = 0; i < 50; i++) natives.push(setTimeout(() => out.push('native fired'), 5));
      const nativeIds = natives.map((x) => +x);
      out.push('distinct ' + (new Set(nativeIds.concat(mineId, +kept)).size === 52));
      clearTimeout(mineId);                                    // Node's: not one of its timers
      out.push('node cleared ours: ' + (mine._destroyed === true));
      qtimers.clearTimeout(mineId);
      for (let i = 1; i < 50; i++) qtimers.clearTimeout(nativeIds[i]);
      setTimeout(() => console.log(JSON.stringify(out)), 40);
    `;
    const res = runJson(source, { timeout: 30000, expect: null });   // it uninstalls
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json, ['distinct true', 'node cleared ours: false', 'native fired', 'kept fired']);
    t.done();
  },

  'with async hooks on, a timer\'s id is the async id hooks saw for it, as natively': function(t) {
    compare(t, 'hooks', `
      const ah = require('async_hooks');
      const seen = new Map();
      ah.createHook({ init(id, type) { if (type === 'Timeout') seen.set(id, type); } }).enable();
      const timers = [];
      for (let i = 0; i < 5; i++) timers.push(setTimeout(() => {}, 1));
      const ok = timers.every((x) => seen.has(+x));
      const ids = new Set(timers.map((x) => +x));
      console.log(JSON.stringify({ ok, distinct: ids.size }));
    `);
    t.done();
  },

  'timers converted to numbers are collectable once fired or cleared': function(t) {
    // 20k timeouts, each converted to a number; half fire, half are cleared by id, then the
    // interval of each pair.  WeakRefs count the survivors after two GCs: natively none on
    // Node >= 20 (Node 18 keeps every fired one), with qtimers none on every version.
    const source = `
      const N = 10000;
      const refs = [];
      for (let i = 0; i < N; i++) {
        const a = setTimeout(() => {}, 1); refs.push(new WeakRef(a)); +a;
        const b = setTimeout(() => {}, 1000); refs.push(new WeakRef(b)); clearTimeout(+b);
        if (i % 100 === 0) { const c = setInterval(function () { clearInterval(\`\${this}\`); }, 1); refs.push(new WeakRef(c)); +c; }
      }
      setTimeout(() => setImmediate(() => {
        global.gc();
        setImmediate(() => {
          global.gc();
          console.log(JSON.stringify({ alive: refs.filter((r) => r.deref() !== undefined).length, of: refs.length }));
        });
      }), 30);
    `;
    const ours = runJson(source, { nodeArgs: ['--expose-gc'], timeout: 60000 });
    t.equal(ours.status, 0, ours.stderr);
    t.deepEqual(ours.json, { alive: 0, of: 20100 });
    if (!NODE_18) {
      const native = runJson(source, { qtimers: false, nodeArgs: ['--expose-gc'], timeout: 60000 });
      t.deepEqual(native.json, ours.json, 'the same natively');
    }
    t.done();
  },
};
