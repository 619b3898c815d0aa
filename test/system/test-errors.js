'use strict';
// A callback that throws: the error reaches 'uncaughtException' (or ends the process as Node's
// would), and every other due callback still runs exactly once.

const { run, runJson } = require('../helpers/child');

const THROWERS = `
  const counts = {};
  function count(k) { counts[k] = (counts[k] || 0) + 1; }
  const errors = [];
  process.on('uncaughtException', (err, origin) => errors.push(err.message + '/' + origin));
  setTimeout(() => { count('t1'); throw new Error('t1'); }, 1);
  setTimeout(() => count('t2'), 1);
  setTimeout(() => { count('t3'); throw new Error('t3'); }, 1);
  setTimeout(() => count('t4'), 1);
  setImmediate(() => { count('i1'); throw new Error('i1'); });
  setImmediate(() => count('i2'));
  setImmediate(() => { count('i3'); process.nextTick(() => { throw new Error('tick'); }); });
  setImmediate(() => count('i4'));
  let n = 0;
  const iv = setInterval(() => { count('iv'); if (++n === 3) clearInterval(iv); throw new Error('iv' + n); }, 1);
  process.on('exit', () => console.log(JSON.stringify({ counts, errors: errors.sort() })));
`;


// Foreign `this` and junk arguments (issue 14, item 8): every case is run natively and with
// qtimers; what each returns or throws (class, code, message), what it writes on the object it
// was handed, and whether a pending timer still fires afterwards must be the same.
const JUNK = `
  const f = function f() {};
  const TimeoutProto = Object.getPrototypeOf(setTimeout(f, 1).unref());
  const ImmediateProto = Object.getPrototypeOf(setImmediate(f).unref());
  function describe(value) {
    if (value === undefined || value === null || typeof value === 'boolean' || typeof value === 'number') return String(value);
    if (typeof value === 'symbol' || typeof value === 'bigint') return typeof value;
    if (typeof value === 'string') return JSON.stringify(value);
    return (value.constructor && value.constructor.name) + ' ' + Reflect.ownKeys(value).filter((k) => typeof k === 'string').map((k) => k + '=' + (typeof value[k] === 'function' ? 'fn' : String(value[k]))).join(',');
  }
  function attempt(label, call, subject) {
    let result;
    try {
      const r = call();
      result = 'returned ' + (r !== undefined && r === subject ? 'this' : describe(r));
    } catch (err) {
      result = 'threw ' + err.constructor.name + ' ' + err.code + ' ' + err.message;
    }
    if (subject !== null && (typeof subject === 'object' || typeof subject === 'function')) result += ' | ' + describe(subject);
    out.push(label + ': ' + result);
  }
  const out = [];
  const things = {
    'undefined': () => undefined, 'null': () => null, '42': () => 42, '0': () => 0, '"abc"': () => 'abc', '""': () => '',
    'true': () => true, 'symbol': () => Symbol('s'), 'bigint': () => 10n, 'function': () => function g() {},
    '{}': () => ({}), '[]': () => [], '{_destroyed:false}': () => ({ _destroyed: false }), '{_destroyed:true}': () => ({ _destroyed: true }),
    '{_onTimeout}': () => ({ _onTimeout: f }), '{_onImmediate}': () => ({ _onImmediate: f, _argv: [1] }),
    'Object.create(Timeout.prototype)': () => Object.create(TimeoutProto),
    'Object.create(Immediate.prototype)': () => Object.create(ImmediateProto),
  };
  for (const [name, make] of Object.entries(things)) {
    for (const method of ['ref', 'unref', 'hasRef', 'refresh', 'close']) {
      const self = make(); attempt('Timeout#' + method + ' on ' + name, () => TimeoutProto[method].call(self), self);
    }
    { const self = make(); attempt('Timeout#toPrimitive on ' + name, () => TimeoutProto[Symbol.toPrimitive].call(self), self); }
    if (Symbol.dispose && TimeoutProto[Symbol.dispose]) { const self = make(); attempt('Timeout#dispose on ' + name, () => TimeoutProto[Symbol.dispose].call(self), self); }
    for (const method of ['ref', 'unref', 'hasRef']) {
      const self = make(); attempt('Immediate#' + method + ' on ' + name, () => ImmediateProto[method].call(self), self);
    }
    for (const clear of ['clearTimeout', 'clearInterval', 'clearImmediate']) {
      const arg = make(); attempt(clear + '(' + name + ')', () => globalThis[clear](arg), arg);
    }
  }
  // an id obtained from a foreign object, then cleared (native: 'undefined', then nothing)
  attempt('clear the id of a foreign toPrimitive', () => clearTimeout(TimeoutProto[Symbol.toPrimitive].call({})));
  // a real handle given to the other kind's clear: left alone (the timeout case is left out:
  // Node 18 and 22 crash or hang on clearImmediate(timeout))
  const imm = setImmediate(() => out.push('immediate ran'));
  clearTimeout(imm); clearInterval(imm);
  const survivor = setTimeout(() => { out.push('timeout ran'); console.log(JSON.stringify(out)); }, 5);
  survivor.refresh();
`;

module.exports = {
  'each throw reaches uncaughtException once; every other callback runs once': function(t) {
    for (const mode of ['default', 'node']) {
      const res = runJson((mode === 'node' ? 'setImmediate.maxTickDepth = 0;\n' : '') + THROWERS);
      t.equal(res.status, 0, res.stderr);
      t.deepEqual(res.json.counts, { t1: 1, t2: 1, t3: 1, t4: 1, i1: 1, i2: 1, i3: 1, i4: 1, iv: 3 }, mode);
      t.deepEqual(res.json.errors, [
        'i1/uncaughtException', 'iv1/uncaughtException', 'iv2/uncaughtException', 'iv3/uncaughtException',
        't1/uncaughtException', 't3/uncaughtException', 'tick/uncaughtException',
      ], mode);
    }
    t.done();
  },

  'the same program gives the same counts natively': function(t) {
    const res = runJson(THROWERS, { qtimers: false });
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json.counts, { t1: 1, t2: 1, t3: 1, t4: 1, i1: 1, i2: 1, i3: 1, i4: 1, iv: 3 });
    t.done();
  },

  'after a throwing timeout the due ones run right after the handler, before its immediate, as native': function(t) {
    // the handler queues an immediate and a nextTick; Node runs the rest of the due timeouts
    // before the immediate, and the next one before the nextTick
    const program = (bThrows) => `
      const log = [];
      process.on('uncaughtException', (e) => {
        log.push('handler ' + e.message);
        setImmediate(() => log.push('immediate after ' + e.message));
        process.nextTick(() => log.push('tick after ' + e.message));
      });
      // start right after a millisecond tick, so that the three share their start and expiry
      const t0 = Math.floor(performance.now());
      while (Math.floor(performance.now()) === t0);
      const a = setTimeout(() => { log.push('A'); throw new Error('A'); }, 5);
      const b = setTimeout(() => { log.push('B'); ${bThrows ? "throw new Error('B');" : ''} }, 5);
      const c = setTimeout(() => log.push('C'), 5);
      // the three share their start (their clock's millisecond need not be performance.now()'s)
      const shared = a._idleStart === b._idleStart && b._idleStart === c._idleStart;
      const installed = 'exactStart' in setTimeout;
      setTimeout(() => console.log(JSON.stringify({ shared, installed, log })), 50);
    `;
    // the order a program gives, as JSON, once it is one of `allowed` (or after three tries of
    // runs whose timers share their start: on a loaded machine a preemption between the three
    // setTimeout calls can put B and C a millisecond later, natively too, and one of a millisecond
    // or more inside Node's timer run can leave qtimers' resume to its nextTick, which Node runs
    // only eventually after the handler; a wrong order every time is a bug)
    const orderOf = (source, qtimers, allowed) => {
      const wanted = allowed.map((order) => JSON.stringify(order));
      let got;
      for (let tries = 0, runs = 0; tries < 3 && runs < 20; runs++) {
        const res = runJson(source, { qtimers });
        t.equal(res.status, 0, res.stderr);
        t.strictEqual(res.json.installed, qtimers, 'qtimers is in place exactly when it should be');
        if (!res.json.shared) continue;
        tries += 1;
        got = JSON.stringify(res.json.log);
        if (wanted.includes(got)) break;
      }
      return got;
    };
    const expect = (source, qtimers, allowed, what) => {
      const got = orderOf(source, qtimers, allowed);
      t.ok(allowed.some((order) => JSON.stringify(order) === got), `${what}: ${got}`);
    };
    const one = ['A', 'handler A', 'B', 'tick after A', 'C', 'immediate after A'];
    const two = ['A', 'handler A', 'B', 'handler B', 'C', 'tick after A', 'tick after B', 'immediate after A', 'immediate after B'];
    expect(program(false), false, [one], 'one throw, native');
    expect(program(true), false, [two], 'two throws, native');
    // qtimers' driver is run again by Node's own retry after the handler (lib/timeout-driver.js,
    // rearmFired): the same order.  After a preemption of a millisecond or more inside Node's
    // timer run the resume is the nextTick queued before the handler's (the README says so): for
    // one throw that is still native's order; for two, the first handler's tick comes before C.
    // No resume at all would run the handler's tick before B: neither allows that.
    const twoByTick = ['A', 'handler A', 'B', 'handler B', 'tick after A', 'C', 'tick after B', 'immediate after A', 'immediate after B'];
    expect(program(false), true, [one], 'one throw, qtimers');
    expect(program(true), true, [two, twoByTick], 'two throws, qtimers');
    t.done();
  },

  'after a throw that Node\'s retry cannot run again (a native timer of 5 ms ran first), the rest still runs before the immediates, as native': function(t) {
    // Node's timer (taken before qtimers installs) is due first and works 5 ms, so qtimers'
    // driver starts more than a millisecond after the reading Node's retry runs what is due by:
    // qtimers resumes the batch from the nextTick it queued before the handler, still before
    // the check phase.  No resume would run C after the immediate.
    const program = `
      const nativeSetTimeout = setTimeout;
      if (process.argv[1] === 'qtimers') require(ROOT);
      const log = [];
      process.on('uncaughtException', (e) => log.push('handler ' + e.message));
      setImmediate(() => log.push('immediate'));
      nativeSetTimeout(() => { log.push('native'); const end = performance.now() + 5; while (performance.now() < end); }, 1);
      setTimeout(() => { log.push('A'); throw new Error('A'); }, 2);
      setTimeout(() => log.push('C'), 2);
      const end = performance.now() + 10;
      while (performance.now() < end);
      const installed = 'exactStart' in setTimeout;
      nativeSetTimeout(() => console.log(JSON.stringify({ installed, log })), 50);
    `;
    const native = runJson(program, { qtimers: false });
    const ours = runJson(program, { qtimers: false, args: ['qtimers'], expect: 'qtimers' });
    t.equal(native.status, 0, native.stderr);
    t.equal(ours.status, 0, ours.stderr);
    t.deepEqual(native.json.log, ['native', 'A', 'handler A', 'C', 'immediate']);
    t.strictEqual(ours.json.installed, true, 'qtimers is in place');
    t.deepEqual(ours.json.log, native.json.log);
    t.done();
  },

  'an unhandled throw ends the process with the same status and report as native': function(t) {
    for (const kind of ['setTimeout(f, 1)', 'setImmediate(f)', 'setInterval(f, 1)']) {
      const src = `function f() { throw new TypeError('bad thing'); }\n${kind};\nsetTimeout(() => console.log('survived'), 50);`;
      const native = run(src, { qtimers: false });
      const ours = run(src);
      t.equal(ours.status, native.status, kind);
      t.equal(ours.stdout, native.stdout, kind);
      // the report: source line, caret and message are the same; stack frames differ
      const head = (s) => s.split('\n').filter((l) => !/^\s+at /.test(l)).slice(0, 6).join('\n');
      t.equal(head(ours.stderr), head(native.stderr), kind);
    }
    t.done();
  },

  '10% of 20000 callbacks throw: all others run once, counts match': function(t) {
    const res = runJson(`
      let ran = 0, thrown = 0, caught = 0;
      process.on('uncaughtException', () => { caught++; });
      for (let i = 0; i < 10000; i++) {
        setImmediate(() => { ran++; if (i % 10 === 0) { thrown++; throw new Error('x'); } });
        setTimeout(() => { ran++; if (i % 10 === 0) { thrown++; throw new Error('y'); } }, 1 + (i % 3));
      }
      process.on('exit', () => console.log(JSON.stringify({ ran, thrown, caught })));
    `, { timeout: 60000 });
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json, { ran: 20000, thrown: 2000, caught: 2000 });
    t.done();
  },

  'foreign this and junk arguments: the same results, errors and writes as native': function(t) {
    const native = runJson(JUNK, { qtimers: false });
    const ours = runJson(JUNK);
    t.equal(native.status, 0, native.stderr);
    t.equal(ours.status, 0, ours.stderr);
    t.ok(Array.isArray(native.json) && native.json.length > 200, 'the native program ran every case');
    const differ = [];
    for (let i = 0; i < Math.max(native.json.length, ours.json ? ours.json.length : 0); i++) {
      if (!ours.json || ours.json[i] !== native.json[i]) differ.push({ native: native.json[i], qtimers: ours.json && ours.json[i] });
    }
    t.deepEqual(differ, []);
    t.done();
  },
};
