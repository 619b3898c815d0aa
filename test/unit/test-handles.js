'use strict';
// lib/handles.js: the Timeout and Immediate objects.  Their shape (an immediate is three fields,
// one prototype per kind), ref/unref/hasRef, close() and Symbol.dispose, what util.inspect and
// JSON.stringify show (Node's fields, never the internals), reads free of side effects, and
// Node's own clear functions handed them; each compared with Node's own handles.

const util = require('util');
const qt = require('../../lib/standalone');
const child = require('../helpers/child');

const ONE_LINE = { breakLength: Infinity };

/* run `source` as a script file with qtimers preloaded (`node -r qtimers file.js`) */
function runPreloaded(source) {
  const fs = require('fs');
  const os = require('os');
  const path = require('path');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'qtimers-handles-')), 'program.js');
  fs.writeFileSync(file, source);
  try {
    return child.runFileJson(file);
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

function show(handle, options) {
  return util.inspect(handle, Object.assign({}, ONE_LINE, options));
}

/*
 * What a program and its tools see of handles, through their lives, one line per view; run
 * natively and with qtimers.  Each pending handle is alone in its list, so Node's links are to
 * its list (timeouts) or to nothing (immediates), which qtimers' views show too.
 */
const VIEWS_PROGRAM = `
  const util = require('util');
  const out = [];
  function json(h) { try { return JSON.stringify(h); } catch (e) { return 'throws ' + e.constructor.name; } }
  function views(label, h) {
    out.push([label, 'inspect', util.inspect(h, { breakLength: Infinity })]);
    out.push([label, 'hidden', util.inspect(h, { breakLength: Infinity, showHidden: true })]);
    out.push([label, 'colors', util.inspect(h, { breakLength: Infinity, colors: true })]);
    out.push([label, 'nested', util.inspect({ outer: { h } }, { breakLength: 40 })]);
    out.push([label, '%o', util.format('%o', h)]);
    out.push([label, 'json', json(h)]);
    out.push([label, 'json nested', json({ h })]);
    out.push([label, 'fields', util.inspect([h._idleTimeout, h._repeat, h._destroyed, h._timerArgs, typeof h._onTimeout, h._onTimeout === null,
      h._argv, typeof h._onImmediate, h._onImmediate === null, h._idleNext === null, h.hasRef(), h.constructor.name])]);
  }
  const work = function work() {};
  const t = setTimeout(work, 1001);
  t.custom = 'kept';
  views('pending timeout', t);
  t.unref(); views('unref timeout', t); t.ref();
  const ta = setTimeout(work, 1002, 'a', 2);
  views('pending timeout with arguments', ta);
  const iv = setInterval(function tick() {}, 1003);
  views('pending interval', iv);
  clearTimeout(t); views('cleared timeout', t);
  clearInterval(iv); views('cleared interval', iv);
  clearTimeout(ta);
  const im = setImmediate(function soon() {});
  views('pending immediate', im);
  im.unref(); views('unref immediate', im); im.ref();
  clearImmediate(im); views('cleared immediate', im);
  const ima = setImmediate(function soon() {}, 'x');
  views('pending immediate with an argument', ima);
  const fired = setTimeout(work, 1);
  clearImmediate(ima);
  setImmediate(() => {
    const ran = setImmediate(function alone() {});
    setTimeout(() => {
      views('fired timeout', fired);
      views('ran lone immediate', ran);
      console.log(JSON.stringify(out));
    }, 20);
  });
`;

/* Node's values that differ from run to run: the start time and async ids */
const COLOR = '(?:\u001b\\[\\d+m)?';
const IDLE_START = new RegExp(`_idleStart(":|: )${COLOR}\\d+`, 'g');
const ASYNC_IDS = new RegExp(`(Symbol\\((asyncId|triggerId)\\)${COLOR}\\]?: )${COLOR}(\\d+|undefined)${COLOR}`, 'g');
function normalized(text) {
  return text.replace(IDLE_START, '_idleStart$1N').replace(ASYNC_IDS, '$1ID');
}

/* the views of each handle, natively and with qtimers */
function viewsOf(t, qtimers) {
  const res = child.runJson(VIEWS_PROGRAM, { qtimers });
  t.equal(res.status, 0, res.stderr);
  return res.json;
}

module.exports = {
  'util.inspect and JSON.stringify show what Node\'s show, through each handle\'s life': function(t) {
    const native = viewsOf(t, false);
    const ours = viewsOf(t, true);
    t.equal(ours.length, native.length);
    let compared = 0;
    for (let i = 0; i < native.length; i++) {
      const [label, view, text] = native[i];
      const mine = ours[i][2];
      t.ok(!/^throws/.test(mine), `${label}, ${view}: qtimers' never throws: ${mine}`);
      t.ok(!/_flags|_carrier|_asyncContext|qtimers/.test(mine), `${label}, ${view}: no internal field: ${mine}`);
      // Node's pending timers link to their list, which JSON.stringify finds circular: ours show
      // Node's fields with the links null
      if (/^throws/.test(text)) {
        t.ok(/^pending/.test(label) || /unref/.test(label), `${label}: only pending handles throw natively`);
        t.ok(/"_idlePrev":null,"_idleNext":null/.test(mine), mine);
        continue;
      }
      t.equal(normalized(mine), normalized(text), `${label}, ${view}`);
      compared += 1;
    }
    t.ok(compared >= 80, `${compared} views compared`);
    // the control: Node's own views are what this test expects of them
    t.ok(native.some(([label, view, text]) => label === 'pending timeout' && view === 'inspect' &&
      /^Timeout \{ _idleTimeout: 1001, _idlePrev: \[TimersList\], _idleNext: \[TimersList\], _idleStart: \d+, _onTimeout: \[Function: work\], _timerArgs: undefined, _repeat: null, _destroyed: false, custom: 'kept', /.test(text)));
    t.done();
  },

  'the installed global functions make the same handles': function(t) {
    qt.install();
    try {
      const timer = setTimeout(function work() {}, 20);
      const immediate = setImmediate(function soon() {});
      t.strictEqual(Object.getPrototypeOf(timer), qt.Timeout.prototype);
      t.strictEqual(Object.getPrototypeOf(immediate), qt.Immediate.prototype);
      t.ok(show(timer).startsWith('Timeout { _idleTimeout: 20,'), show(timer));
      t.ok(show(immediate).startsWith('Immediate { _idleNext: null, _idlePrev: null, _onImmediate: [Function: soon],'), show(immediate));
      clearTimeout(timer);
      clearImmediate(immediate);
    } finally {
      qt.uninstall();
    }
    t.done();
  },

  'one prototype per kind, and every function\'s length and name as Node\'s': function(t) {
    const program = `
      const timers = require('timers');
      const promises = require('timers/promises');
      const f = () => {};
      const out = {
        timeout: Object.getPrototypeOf(setTimeout(f, 1)) === Object.getPrototypeOf(setTimeout(f, 1, 'a')),
        interval: Object.getPrototypeOf(setInterval(f, 1)) === Object.getPrototypeOf(setTimeout(f, 1, 'a', 'b', 'c', 'd')),
        immediate: Object.getPrototypeOf(setImmediate(f)) === Object.getPrototypeOf(setImmediate(f, 1, 2, 3, 4)),
        ownNames: [Object.getOwnPropertyNames(setTimeout(f, 1)).length, Object.getOwnPropertyNames(setTimeout(f, 1, 'a')).length],
        functions: {},
        installed: typeof setTimeout(f, 1)._flags === 'number',
      };
      const holders = { global: globalThis, timers, promises, scheduler: promises.scheduler };
      for (const [where, holder] of Object.entries(holders)) {
        for (const name of ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate', 'wait', 'yield']) {
          const fn = holder && holder[name];
          if (typeof fn === 'function') out.functions[where + '.' + name] = [fn.length, fn.name];
        }
      }
      console.log(JSON.stringify(out));
      process.exit(0);
    `;
    const native = child.runJson(program, { qtimers: false });
    const ours = child.runJson(program);
    t.equal(native.status, 0, native.stderr);
    t.equal(ours.status, 0, ours.stderr);
    t.strictEqual(native.json.installed, false);
    t.strictEqual(ours.json.installed, true, 'qtimers was in place');
    for (const kind of ['timeout', 'interval', 'immediate']) t.strictEqual(ours.json[kind], true, kind);
    t.ok(Object.keys(native.json.functions).length >= 16, Object.keys(native.json.functions).join(' '));
    t.deepEqual(ours.json.functions, native.json.functions);
    t.done();
  },

  'reading any property of a handle changes no timer': function(t) {
    // every property and symbol of the handles and their prototypes read, over and over, while
    // pending: all still run, in order, and still keep the process alive; natively the same
    const program = `
      const util = require('util');
      const ran = [];
      function readAll(h) {
        for (let o = h; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
          for (const key of Reflect.ownKeys(o)) { try { void h[key]; } catch (e) { ran.push('read threw ' + String(key)); } }
        }
        JSON.stringify({ h: h._destroyed });
        util.inspect(h, { showHidden: true, depth: 3 });
        return h.hasRef();
      }
      const handles = [
        setImmediate(() => ran.push('immediate 1')),
        setImmediate((x) => ran.push(x), 'immediate 2'),
        setTimeout(() => ran.push('timeout 60'), 60),
        setInterval(function () { ran.push('interval'); clearInterval(this); }, 40),
      ];
      const refs = [];
      for (let i = 0; i < 3; i++) for (const h of handles) refs.push(readAll(h));
      process.on('exit', () => console.log(JSON.stringify({ ran, refs })));
    `;
    const native = child.runJson(program, { qtimers: false });
    const ours = child.runJson(program);
    t.equal(native.status, 0, native.stderr);
    t.equal(ours.status, 0, ours.stderr);
    t.deepEqual(native.json.ran, ['immediate 1', 'immediate 2', 'interval', 'timeout 60'], 'the control: everything ran natively');
    t.deepEqual(ours.json, native.json);
    t.done();
  },

  'Node\'s own clearImmediate, handed a qtimers Immediate, cancels it and leaves Node\'s immediates running': function(t) {
    // references to Node's functions taken before install (a library loaded first), handed
    // qtimers' handles; natively the same program with Node's functions throughout
    const program = `
      const nodeClearImmediate = clearImmediate;
      const nodeSetImmediate = setImmediate;
      const nodeClearTimeout = clearTimeout;
      if (process.argv[1] === 'qtimers') require(ROOT).install();
      const out = { installed: typeof setTimeout(() => {}, 1)._flags === 'number', ran: [] };
      // Node's own immediates, before and after, and ours: all run, in turn
      let n = 0;
      (function chain() { out.ran.push('node ' + n); if (++n < 5) nodeSetImmediate(chain); })();
      const a = setImmediate(() => out.ran.push('cleared a'));
      out.destroyedBefore = a._destroyed;
      nodeClearImmediate(a);
      out.destroyedAfter = [a._destroyed, a.hasRef()];
      nodeClearImmediate(a);                      // twice: nothing more
      const b = setTimeout(() => out.ran.push('cleared b'), 5);
      nodeClearTimeout(b);
      out.timeoutAfter = [b._destroyed, b._idleTimeout];
      setImmediate(() => out.ran.push('ours'));
      setTimeout(() => console.log(JSON.stringify(out)), 30);
    `;
    const native = child.runJson(program, { qtimers: false, args: ['native'] });
    const ours = child.runJson(program, { qtimers: false, expect: 'qtimers', args: ['qtimers'] });
    t.equal(native.status, 0, native.stderr);
    t.equal(ours.status, 0, ours.stderr);
    t.strictEqual(ours.json.installed, true, 'qtimers was in place');
    t.strictEqual(native.json.installed, false);
    t.deepEqual(native.json.ran, ['node 0', 'node 1', 'ours', 'node 2', 'node 3', 'node 4'], 'the control');
    delete native.json.installed;
    delete ours.json.installed;
    t.deepEqual(ours.json, native.json);
    t.done();
  },

  'close() and Symbol.dispose clear too': function(t) {
    const a = qt.setTimeout(() => t.fail('fired'), 1);
    t.strictEqual(a.close(), a);
    const b = qt.setInterval(() => t.fail('fired'), 1);
    if (Symbol.dispose) b[Symbol.dispose](); else b.close();
    const c = qt.setImmediate(() => t.fail('fired'));
    if (Symbol.dispose) c[Symbol.dispose](); else qt.clearImmediate(c);
    t.strictEqual(a._destroyed, true);
    t.strictEqual(b._destroyed, true);
    t.strictEqual(c._destroyed, true);
    qt.setTimeout(() => t.done(), 5);
  },

  '_idleTimeout and _repeat after clearing, as Node': function(t) {
    // cleared while pending or running: delay -1 (Node's unenroll), an interval's _repeat kept;
    // cleared after firing: unchanged
    const program = `
      const out = {};
      const a = setTimeout(() => {}, 100); clearTimeout(a); out.timeout = [a._idleTimeout, a._repeat];
      const b = setInterval(() => {}, 50); clearInterval(b); out.interval = [b._idleTimeout, b._repeat];
      const c = setTimeout(() => {}, 100); c.close(); out.closed = [c._idleTimeout, c._repeat];
      const e = setInterval(() => {}, 70); clearInterval(e); e._repeat = 90; out.repeatSet = [e._idleTimeout, e._repeat];
      const f = setTimeout(() => {}, 40); clearTimeout(f); f.refresh(); out.refreshed = [f._idleTimeout, f._destroyed];
      const d = setTimeout(function () { clearTimeout(d); out.ownCallback = [d._idleTimeout, d._repeat]; }, 1);
      const g = setInterval(function () { clearInterval(g); out.ownInterval = [g._idleTimeout, g._repeat]; }, 1);
      const h = setTimeout(() => {}, 1);
      setTimeout(() => { clearTimeout(h); out.fired = [h._idleTimeout, h._destroyed]; console.log(JSON.stringify(out)); }, 30);
    `;
    const native = child.runJson(program, { qtimers: false });
    const ours = child.runJson(program);
    t.equal(native.status, 0, native.stderr);
    t.equal(ours.status, 0, ours.stderr);
    t.deepEqual(native.json.interval, [-1, 50], 'the control: Node\'s own values');
    t.deepEqual(ours.json, native.json);
    t.done();
  },

  'hasRef after clearing or running, as Node': function(t) {
    const h = qt.setTimeout(() => {}, 1000);
    qt.clearTimeout(h);
    t.strictEqual(h.hasRef(), true, 'a cleared timeout keeps its ref flag');
    const i = qt.setImmediate(() => {});
    qt.clearImmediate(i);
    i.ref();
    t.strictEqual(i.hasRef(), false, 'ref() on a cleared immediate does nothing');
    qt.setImmediate(function() {
      this.ref();
      t.strictEqual(this.hasRef(), false, 'ref() on a running immediate does nothing');
      t.done();
    });
  },

  'an immediate without arguments is three fields, and stays so through clear and run': function(t) {
    // in a fresh process, preloaded as the README says: once any test here has used async
    // context every handle carries it, and on Node >= 24 so does a qtimers loaded by a program
    // that ran before it (lib/context.js)
    const res = runPreloaded(`
      const plain = setImmediate(() => {});
      const withArg = setImmediate((x) => { out.arg = x; }, 7);
      const ran = setImmediate(() => {});
      const out = { plain: Object.keys(plain), withArg: Object.keys(withArg), answersArgv: '_argv' in plain && plain._argv === undefined,
        sameClass: Object.getPrototypeOf(withArg) === Object.getPrototypeOf(plain) };
      clearImmediate(plain);
      out.cleared = Object.keys(plain);
      setImmediate(() => {
        out.ran = Object.keys(ran);
        out.argvAfterRun = withArg._argv === undefined;
        console.log(JSON.stringify(out));
      });
    `);
    t.strictEqual(res.status, 0, res.stderr);
    const out = res.json;
    t.deepEqual(out.plain, ['_onImmediate', '_flags', '_carrier']);
    t.deepEqual(out.withArg, ['_onImmediate', '_flags', '_carrier', '_argv', '_asyncContext']);
    t.strictEqual(out.answersArgv, true, 'answers the subclass fields from its prototype');
    t.strictEqual(out.sameClass, true, 'one prototype');
    t.deepEqual(out.cleared, ['_onImmediate', '_flags', '_carrier'], 'clearing adds no fields');
    t.deepEqual(out.ran, ['_onImmediate', '_flags', '_carrier'], 'running adds no fields');
    t.strictEqual(out.arg, 7, 'the argument arrives');
    t.strictEqual(out.argvAfterRun, true, 'a run immediate lets its arguments go');
    t.done();
  },

  'ref, unref, hasRef': {
    'chain, report their state, and tolerate a foreign this': function(t) {
      const h = qt.setTimeout(() => {}, 1);
      t.strictEqual(h.hasRef(), true);
      t.strictEqual(h.unref().ref().unref(), h);
      t.strictEqual(h.hasRef(), false);
      h.ref();
      t.strictEqual(h.hasRef(), true);
      h.unref.call({});
      h.ref.call({});
      const i = qt.setImmediate(() => {});
      t.strictEqual(i.hasRef(), true);
      t.strictEqual(i.unref(), i);
      t.strictEqual(i.hasRef(), false);
      t.strictEqual(i.ref(), i);
      t.strictEqual(i.hasRef(), true);
      qt.clearImmediate(i);
      qt.clearTimeout(h);
      t.done();
    },
  },
};
