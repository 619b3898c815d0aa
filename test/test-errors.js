'use strict';
// A callback that throws: the error reaches 'uncaughtException' (or ends the process as Node's
// would), and every other due callback still runs exactly once.

const { run, runJson } = require('./helpers/child');

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
};
