'use strict';
// lib/handles.js: the Timeout and Immediate objects.  Their shape (an immediate is three fields),
// ref/unref/hasRef, close() and Symbol.dispose, and util.inspect (console.log): the kind, the
// delay, whether it repeats, whether it keeps the process alive, where it is in its life and its
// callback; never the internals.

const util = require('util');
const qt = require('../lib/standalone');
const child = require('./helpers/child');

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

module.exports = {
  'a timeout shows its delay, ref and state through its life': function(t) {
    const timer = qt.setTimeout(function work() {
      t.equal(show(timer), "Timeout { delay: 2, repeat: false, ref: true, state: 'running', callback: [Function: work] }");
      qt.setImmediate(() => {
        t.equal(show(timer), "Timeout { delay: 2, repeat: false, ref: true, state: 'done', callback: [Function: work] }");
        t.done();
      });
    }, 2);
    t.equal(show(timer), "Timeout { delay: 2, repeat: false, ref: true, state: 'pending', callback: [Function: work] }");
    timer.unref();
    t.equal(show(timer), "Timeout { delay: 2, repeat: false, ref: false, state: 'pending', callback: [Function: work] }");
    timer.ref();
  },

  'a cleared timeout says so and no longer holds its callback': function(t) {
    const timer = qt.setTimeout(() => {}, 1000, 'argument');
    qt.clearTimeout(timer);
    // delay -1: a cleared timer's _idleTimeout, as Node's own
    t.equal(show(timer), "Timeout { delay: -1, repeat: false, ref: true, state: 'cleared', callback: null }");
    t.done();
  },

  'an interval is shown as one, pending again between runs': function(t) {
    let runs = 0;
    const interval = qt.setInterval(function tick() {
      runs += 1;
      t.equal(show(interval), "Interval { delay: 1, repeat: true, ref: true, state: 'running', callback: [Function: tick] }");
      if (runs === 1) {
        qt.setImmediate(() => t.ok(show(interval).includes("state: 'pending'"), show(interval)));
        return;
      }
      qt.clearInterval(interval);
      t.equal(show(interval), "Interval { delay: -1, repeat: true, ref: true, state: 'cleared', callback: null }");
      t.done();
    }, 1);
    t.equal(show(interval), "Interval { delay: 1, repeat: true, ref: true, state: 'pending', callback: [Function: tick] }");
  },

  'an immediate shows ref and state': function(t) {
    const pending = qt.setImmediate(function soon() {});
    t.equal(show(pending), "Immediate { ref: true, state: 'pending', callback: [Function: soon] }");
    pending.unref();
    t.equal(show(pending), "Immediate { ref: false, state: 'pending', callback: [Function: soon] }");
    const cleared = qt.setImmediate(() => {});
    qt.clearImmediate(cleared);
    t.equal(show(cleared), "Immediate { ref: false, state: 'cleared', callback: null }");
    qt.setImmediate(() => {
      t.equal(show(pending), "Immediate { ref: false, state: 'done', callback: null }");
      t.done();
    });
  },

  'no internal field shows, whatever the options': function(t) {
    const handles = [qt.setTimeout(() => {}, 10, 'a', 'b'), qt.setInterval(() => {}, 10), qt.setImmediate(() => {}, 'c')];
    for (const handle of handles) {
      for (const options of [{}, { showHidden: true }, { depth: null }, { depth: 0 }, { colors: true }, { compact: false }]) {
        const text = util.inspect(handle, options);
        t.ok(/^(Timeout|Interval|Immediate) \{/.test(text), text);
        t.ok(!/\b_[a-zA-Z]|Symbol\(|\[TimersList\]|asyncId/.test(text), text);
      }
    }
    qt.clearTimeout(handles[0]);
    qt.clearInterval(handles[1]);
    qt.clearImmediate(handles[2]);
    t.done();
  },

  'the view nests in objects and arrays, follows the colors option, and formats with %o and %O': function(t) {
    const timer = qt.setTimeout(function work() {}, 50);
    t.equal(util.inspect({ timer }, ONE_LINE), "{ timer: Timeout { delay: 50, repeat: false, ref: true, state: 'pending', callback: [Function: work] } }");
    t.equal(util.inspect([timer, timer], ONE_LINE).split('Timeout {').length, 3);
    t.ok(util.inspect(timer, { colors: true }).includes('\u001b[33m50\u001b[39m'), 'the delay is coloured as a number');
    t.ok(util.format('%o', timer).startsWith('Timeout {'));
    t.ok(util.format('%O', timer).startsWith('Timeout {'));
    t.ok(util.format('%s', { timer }).length > 0);
    // a multi-line view is indented with the object around it
    const nested = util.inspect({ outer: { timer } }, { breakLength: 40 });
    t.ok(/\n {4}timer: Timeout \{\n {6}delay: 50,\n/.test(nested), nested);
    qt.clearTimeout(timer);
    t.done();
  },

  'the installed global functions make the same handles': function(t) {
    qt.install();
    try {
      const timer = setTimeout(function work() {}, 20);
      const immediate = setImmediate(function soon() {});
      t.equal(show(timer), "Timeout { delay: 20, repeat: false, ref: true, state: 'pending', callback: [Function: work] }");
      t.equal(show(immediate), "Immediate { ref: true, state: 'pending', callback: [Function: soon] }");
      clearTimeout(timer);
      clearImmediate(immediate);
    } finally {
      qt.uninstall();
    }
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
      const out = { plain: Object.keys(plain), withArg: Object.keys(withArg), answersArgv: '_argv' in plain && '_asyncContext' in plain,
        sameClass: withArg instanceof plain.constructor };
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
    t.strictEqual(out.sameClass, true, 'one class for clearImmediate');
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
