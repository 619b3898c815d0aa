'use strict';
// process.getActiveResourcesInfo() with qtimers installed (and lib/active-resources.js's patch in
// force) lists what it lists natively: one 'Timeout' per referenced pending timeout or interval,
// one 'Immediate' per referenced pending immediate, in Node's order, in every state a program
// can ask in (same synchronous section, inside callbacks, after clears, unref and ref).  Each
// program runs natively and with qtimers, in child processes, and the lists are compared.

const { runJson } = require('../helpers/child');

// Every program records snapshots with snap(label) and prints them at exit.  With qtimers
// preloaded, install() has put the patch in force.
const RECORD = `
  const snaps = [];
  function snap(label) { snaps.push(label + ': ' + process.getActiveResourcesInfo().filter((r) => r === 'Timeout' || r === 'Immediate').join(',')); }
  process.on('exit', () => { snap('exit'); console.log(JSON.stringify(snaps)); });
`;

const PROGRAMS = {
  'pending timeouts and intervals, ref\'d and unref\'d, in the same section': `
    snap('start');
    const a = setTimeout(() => {}, 20);
    snap('one timeout');
    const b = setTimeout(() => {}, 30).unref();
    snap('one unref\\'d');
    const c = setInterval(() => { clearInterval(c); }, 10);
    snap('interval');
    b.ref();
    snap('ref again');
    a.unref(); a.unref();
    snap('unref twice');
    clearTimeout(a);
    snap('cleared unref\\'d');
  `,
  'immediates: pending, unref\'d, cleared, running': `
    const i1 = setImmediate(() => { snap('in first immediate'); });
    const i2 = setImmediate(() => { snap('in second immediate'); setImmediate(() => snap('in nested immediate')); });
    snap('two immediates');
    const i3 = setImmediate(() => {}).unref();
    snap('one unref\\'d');
    const i4 = setImmediate(() => {});
    clearImmediate(i4);
    snap('one cleared');
    i3.ref();
    snap('ref again');
  `,
  'inside timeout callbacks: the running one counts, as Node': `
    setTimeout(function first() {
      snap('in first timeout');
      setTimeout(() => snap('in later timeout'), 30);
      const u = setTimeout(() => {}, 100).unref();
      snap('after making two');
      clearTimeout(u);
    }, 1);
    let n = 0;
    const iv = setInterval(() => {
      snap('in interval ' + n);
      if (++n === 2) clearInterval(iv);
    }, 3);
  `,
  // needs timeout-drain.js to uncount a running timeout when its callback unrefs or clears it
  // (Node does at once; see the report of issue 14, item 9)
  'a running timeout that unrefs or clears itself is no longer counted, as Node': `
    setTimeout(function first() {
      snap('in first timeout');
      this.unref();
      snap('unrefed itself');
      setTimeout(function second() {
        snap('in second timeout');
        clearTimeout(this);
        snap('cleared itself');
      }, 2);
    }, 1);
  `,
  'a timeout refreshed, a timeout revived by refresh after it fired': `
    let revived = false;
    const t = setTimeout(() => {
      snap('fired');
      if (revived) return;
      revived = true;
      setImmediate(() => { snap('after fire'); t.refresh(); snap('revived'); });
    }, 2);
    t.refresh();
    snap('refreshed while pending');
  `,
  'timers made and cleared in immediates and timeouts, mixed': `
    setImmediate(() => {
      const x = setTimeout(() => {}, 50);
      snap('immediate made a timeout');
      clearTimeout(x);
      snap('and cleared it');
      setTimeout(() => { snap('timeout from immediate'); setImmediate(() => snap('immediate from timeout')); }, 1);
    });
  `,
};

function compare(t, name, body) {
  const source = RECORD + body;
  const native = runJson(source, { qtimers: false, timeout: 20000 });
  const ours = runJson(source, { timeout: 20000 });
  t.equal(native.status, 0, native.stderr);
  t.equal(ours.status, 0, ours.stderr);
  t.ok(Array.isArray(native.json) && native.json.length > 1, `${name}: the native program recorded snapshots`);
  t.deepEqual(ours.json, native.json, name);
}

module.exports = {
  'each program lists the same timers natively and with qtimers': function(t) {
    for (const name of Object.keys(PROGRAMS)) compare(t, name, PROGRAMS[name]);
    t.done();
  },

  'without the patch the list is wrong: the test can fail': function(t) {
    const body = 'setTimeout(() => {}, 5); setTimeout(() => {}, 6); setImmediate(() => {}); setImmediate(() => {}); snap(\'four\');';
    const res = runJson(`require(ROOT + '/lib/active-resources').unpatch();\n` + RECORD + body, { timeout: 20000 });
    t.equal(res.status, 0, res.stderr);
    t.notEqual(res.json[0], 'four: Timeout,Timeout,Immediate,Immediate');
    t.done();
  },

  'patch() and unpatch() put back exactly the function that was there': function(t) {
    const res = runJson(`
      const was = Object.getOwnPropertyDescriptor(process, 'getActiveResourcesInfo');
      const ar = require(ROOT + '/lib/active-resources');
      ar.patch(); ar.patch();
      const patched = Object.getOwnPropertyDescriptor(process, 'getActiveResourcesInfo');
      ar.unpatch(); ar.unpatch();
      const after = Object.getOwnPropertyDescriptor(process, 'getActiveResourcesInfo');
      console.log(JSON.stringify({
        replaced: patched.value !== was.value,
        name: patched.value.name, length: patched.value.length,
        attributes: [patched.writable, patched.enumerable, patched.configurable].join() === [was.writable, was.enumerable, was.configurable].join(),
        restored: after.value === was.value && after.writable === was.writable && after.enumerable === was.enumerable && after.configurable === was.configurable,
      }));
    `, { qtimers: false, timeout: 20000 });
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json, { replaced: true, name: 'getActiveResourcesInfo', length: 0, attributes: true, restored: true });
    t.done();
  },

  'intervals cleared in their callback and unref\'d handles: the native list': function(t) {
    const body = `
      setTimeout(() => {}, 5); setInterval(function () { clearInterval(this); }, 6); setTimeout(() => {}, 7).unref();
      setImmediate(() => {}); setImmediate(() => {}).unref();
      const list = process.getActiveResourcesInfo();
      console.log(JSON.stringify(list.filter((r) => r === 'Timeout' || r === 'Immediate')));
    `;
    const native = runJson(body, { qtimers: false });
    const ours = runJson(body);
    t.deepEqual(native.json, ['Timeout', 'Timeout', 'Immediate']);
    t.deepEqual(ours.json, native.json);
    t.done();
  },
};
