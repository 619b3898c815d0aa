'use strict';
// install() and uninstall(): which functions the globals and the timers module name, that the
// originals come back exactly, that handles work across the swap in both directions, and the
// util.promisify wiring install.js sets up between the callback and the promise functions.

const util = require('util');
const { runJson } = require('../helpers/child');
const qt = require('../../lib/standalone');

module.exports = {
  'require installs; uninstall restores the exact originals; both are idempotent': function(t) {
    const res = runJson(`
      const names = ['setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'];
      const timers = require('timers');
      const before = names.map((n) => globalThis[n]);
      const beforeModule = names.map((n) => timers[n]);
      const descBefore = names.map((n) => JSON.stringify(Object.getOwnPropertyDescriptor(globalThis, n), (k, v) => typeof v === 'function' ? 'fn' : v));
      const q = require(ROOT);
      const out = {};
      out.installed = names.every((n) => globalThis[n] === q[n] && timers[n] === q[n]);
      out.differs = names.every((n, i) => globalThis[n] !== before[i]);
      out.tsEnumerable = Object.keys(globalThis).includes('currentTimestamp');
      out.tsWorks = typeof currentTimestamp === 'function' && currentTimestamp() > 1.6e12;
      out.sameAttributes = names.every((n, i) => JSON.stringify(Object.getOwnPropertyDescriptor(globalThis, n), (k, v) => typeof v === 'function' ? 'fn' : v) === descBefore[i]);
      q.install(); q.install();
      out.stillInstalled = names.every((n) => globalThis[n] === q[n]);
      q.uninstall(); q.uninstall();
      out.restored = names.every((n, i) => globalThis[n] === before[i] && timers[n] === beforeModule[i]);
      out.tsGone = !('currentTimestamp' in globalThis);
      q.install({ timersModule: false });
      out.globalsOnly = names.every((n, i) => globalThis[n] === q[n] && timers[n] === beforeModule[i]);
      q.uninstall();
      out.restoredAgain = names.every((n, i) => globalThis[n] === before[i]);
      console.log(JSON.stringify(out));
    `, { qtimers: false });
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json, {
      installed: true, differs: true, tsEnumerable: false, tsWorks: true, sameAttributes: true,
      stillInstalled: true, restored: true, tsGone: true, globalsOnly: true, restoredAgain: true,
    });
    t.done();
  },

  'install() replaces only Node\'s own functions; uninstall() only where qtimers\' are still in place': function(t) {
    const res = runJson(`
      const names = ['setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'];
      const timers = require('timers');
      const nodes = names.map((n) => globalThis[n]);
      const nodeSetTimeout = setTimeout;
      const wrapper = function setTimeout(fn, ms) { return nodeSetTimeout(fn, ms); };
      globalThis.setTimeout = wrapper;                    // someone else's function on a global
      const q = require(ROOT);
      const out = {};
      out.leftAlone = !q.isInstalled() && setTimeout === wrapper && clearTimeout === nodes[3] && timers.setTimeout === nodeSetTimeout;
      globalThis.setTimeout = nodeSetTimeout;
      timers.clearInterval = function clearInterval(t) {};   // and on one module export
      const spy = timers.clearInterval;
      q.install();
      out.installed = q.isInstalled() && setTimeout === q.setTimeout && timers.setTimeout === q.setTimeout && timers.clearInterval === spy;
      const over = function setImmediate(fn) {};           // installed over qtimers' function
      globalThis.setImmediate = over;
      q.uninstall();
      out.stillUnder = q.isInstalled() && setImmediate === over && setTimeout === nodes[2] && timers.setTimeout === nodeSetTimeout;
      globalThis.setImmediate = q.setImmediate;            // what a fake's uninstall puts back
      q.uninstall();
      out.restored = !q.isInstalled() && names.every((n, i) => globalThis[n] === nodes[i]) && timers.clearInterval === spy;
      setTimeout(() => { out.fired = true; console.log(JSON.stringify(out)); }, 1);
    `, { qtimers: false });
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json, { leftAlone: true, installed: true, stillUnder: true, restored: true, fired: true });
    t.done();
  },

  'qtimers/standalone touches no global': function(t) {
    const res = runJson(`
      const before = setTimeout;
      const q = require(ROOT + '/lib/standalone');
      console.log(JSON.stringify({ untouched: setTimeout === before && require('timers').setTimeout === before, notInstalled: !q.isInstalled(), api: typeof q.setTimeout }));
    `, { qtimers: false });
    t.deepEqual(res.json, { untouched: true, notInstalled: true, api: 'function' });
    t.done();
  },

  'handles cross the swap: native ones clear after install, ours still fire after uninstall': function(t) {
    const res = runJson(`
      const log = [];
      const nt = setTimeout(() => log.push('native timeout fired'), 5);
      const ni = setInterval(() => log.push('native interval fired'), 5);
      const nim = setImmediate(() => log.push('native immediate fired'));
      const nid = +setTimeout(() => log.push('native id fired'), 5);
      const q = require(ROOT);
      clearTimeout(nt); clearInterval(ni); clearImmediate(nim); clearTimeout(nid);
      const ours = setTimeout(() => log.push('ours fired'), 5);
      const oursCleared = setTimeout(() => log.push('ours cleared fired'), 5);
      const oursImm = setImmediate(() => log.push('ours immediate fired'));
      q.uninstall();
      clearTimeout(oursCleared);            // Node's clearTimeout given a qtimers handle
      const native2 = setImmediate(() => log.push('native immediate 2'));
      clearImmediate(oursImm);              // Node's clearImmediate given a qtimers handle
      process.on('exit', () => console.log(JSON.stringify(log.sort())));
    `, { qtimers: false });
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json, ['native immediate 2', 'ours fired']);
    t.done();
  },

  'uninstall from inside a callback while timers are pending': function(t) {
    const res = runJson(`
      const q = require(ROOT);
      const log = [];
      let c;
      setTimeout(() => {
        q.uninstall();
        log.push('a');
        clearTimeout(c);                                        // Node's, given a pending qtimers handle
        setTimeout(() => log.push('native after uninstall'), 1);
      }, 1);
      setTimeout(() => log.push('b'), 2);                       // pending during uninstall: still fires
      c = setTimeout(() => log.push('c'), 3);
      process.on('exit', () => console.log(JSON.stringify(log.sort())));
    `, { qtimers: false });
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json, ['a', 'b', 'native after uninstall']);
    t.done();
  },

  'install() refuses options of the wrong type and unknown option names with Node\'s errors': function(t) {
    const dns = require('dns');
    const nodeError = (fn) => { try { fn(); } catch (err) { return err; } return null; };
    const received = (message) => message.slice(message.indexOf('. Received ') + '. Received '.length);
    // Node's own errors for the same mistakes: a boolean option that is a string, an options
    // argument that is not an object (timers/promises checks both before anything else)
    Promise.all([
      require('timers/promises').setTimeout(1, undefined, { ref: 'false' }).then(() => null, (err) => err),
      require('timers/promises').setTimeout(1, undefined, 5).then(() => null, (err) => err),
    ]).then(([notBoolean, notObject]) => {
      const wrongType = nodeError(() => qt.install({ timersModule: 'false' }));
      t.ok(wrongType instanceof TypeError && wrongType.code === 'ERR_INVALID_ARG_TYPE', String(wrongType));
      t.equal(wrongType.message, 'The "options.timersModule" property must be of type boolean. Received type string (\'false\')');
      t.equal(wrongType.message, notBoolean.message.replace('"options.ref"', '"options.timersModule"'), 'worded as Node words it');
      t.ok(wrongType.stack.split('\n')[1].includes(__filename), 'the stack starts at the call');
      const notAnObject = nodeError(() => qt.install(5));
      t.equal(notAnObject.code, 'ERR_INVALID_ARG_TYPE');
      t.equal(notAnObject.message, notObject.message);
      t.equal(qt.isInstalled(), false, 'nothing installed by a refused call');
      // a misspelt name: ERR_INVALID_ARG_VALUE, the value described as Node describes it
      // (dns.lookup refuses a family with the same error and the value as it was given)
      const values = [false, 'x', [1, 2], { a: 1 }, 'y'.repeat(200), 5n, Symbol('s'), () => 1];
      for (const value of values) {
        const ours = nodeError(() => qt.install({ timerModule: value }));
        const node = nodeError(() => dns.lookup('localhost', { family: value }, () => {}));
        t.ok(ours instanceof TypeError, String(ours));
        t.equal(ours.code, 'ERR_INVALID_ARG_VALUE');
        t.equal(ours.constructor, node.constructor);
        t.equal(received(ours.message), received(node.message), `the value as Node shows it: ${received(node.message)}`);
        t.ok(ours.message.startsWith('The property \'options.timerModule\' is not an option of install(). Received '), ours.message);
      }
      t.equal(qt.isInstalled(), false);
      t.done();
    }).catch((err) => { t.fail(err.stack); t.done(); });
  },

  'install({ timersModule: false }) leaves the timers module; undefined is the default': function(t) {
    const res = runJson(`
      const nodes = require('timers').setTimeout;
      const q = require(ROOT + '/lib/standalone');
      q.install({ timersModule: false });
      const off = require('timers').setTimeout === nodes && setTimeout === q.setTimeout;
      q.install({ timersModule: undefined });
      const on = require('timers').setTimeout === q.setTimeout;
      console.log(JSON.stringify({ off, on }));
    `, { qtimers: false, expect: 'qtimers' });
    t.deepEqual(res.json, { off: true, on: true }, res.stderr);
    t.done();
  },

  'without process._tickCallback: Node\'s timers stay, callbacks keep Node\'s order, one warning': function(t) {
    // A and B, then I and J: each callback's ticks and promise jobs (a chain of two) before the next
    const scenario = (api) => `
      const warnings = [];
      process.on('warning', (w) => { if (String(w.code).startsWith('QTIMERS_')) warnings.push(w.code); });
      const log = [];
      const cb = (name) => () => {
        log.push(name);
        process.nextTick(() => { log.push('tick' + name); process.nextTick(() => log.push('tick2' + name)); });
        Promise.resolve().then(() => log.push('prom' + name)).then(() => log.push('prom2' + name));
      };
      ${api}.setTimeout(cb('A'), 1);
      ${api}.setTimeout(cb('B'), 1);
      const iv = ${api}.setInterval(() => { cb('V')(); ${api}.clearInterval(iv); }, 1);
      ${api}.setTimeout(() => { ${api}.setImmediate(cb('I')); ${api}.setImmediate(cb('J')); }, 5);
      process.on('exit', () => console.log(JSON.stringify({ log, warnings, installed: typeof q === 'object' && q.isInstalled() })));
    `;
    const native = runJson('delete process._tickCallback;\n' + scenario('globalThis'), { qtimers: false });
    const installed = runJson(`delete process._tickCallback;
      const nodes = setTimeout;
      const q = require(ROOT);
      q.install();                      // a second install(): still nothing, and no second warning
      const keptNodes = setTimeout === nodes && require('timers').setTimeout === nodes;
      ${scenario('globalThis')}
      console.error('keptNodes', keptNodes);`, { qtimers: false });
    const standalone = runJson('delete process._tickCallback;\nconst q = require(ROOT + "/lib/standalone");\n' + scenario('q'), { qtimers: false });
    t.equal(native.status, 0, native.stderr);
    t.deepEqual(native.json.log.slice(0, 5), ['A', 'tickA', 'tick2A', 'promA', 'prom2A'], 'natively, A\'s ticks and jobs run before B');
    for (const [label, res] of [['installed', installed], ['standalone', standalone]]) {
      t.equal(res.status, 0, `${label}: ${res.stderr}`);
      t.deepEqual(res.json.log, native.json.log, `${label}: the order is native's`);
      t.deepEqual(res.json.warnings, ['QTIMERS_NO_TICK_CALLBACK'], `${label}: warned once`);
      t.equal(res.json.installed, false, `${label}: not installed`);
      t.equal(res.stderr.split('QTIMERS_NO_TICK_CALLBACK').length - 1, 1, `${label}: one warning printed`);
    }
    t.ok(/keptNodes true/.test(installed.stderr), 'the globals and the timers module keep Node\'s functions');
    t.deepEqual(native.json.warnings, []);
    t.done();
  },

'util.promisify': {
  'promisified setTimeout and setImmediate resolve with the value, as native': async function(t) {
    const v1 = await util.promisify(qt.setTimeout)(2, 'value');
    const v2 = await util.promisify(qt.setImmediate)('other');
    t.equal(v1, 'value');
    t.equal(v2, 'other');
    t.done();
  },
},
};
