'use strict';
// lib/report.js and lib/report-preload.js: report() puts stats() and pending() into a table for
// people, and `node -r qtimers/report app.js` prints it on SIGUSR2 and at exit when a referenced
// timer is still pending.  The preload must not change the program: the same output and exit
// status as natively (and as with plain qtimers), a program with nothing pending exits as it
// would, and the report goes to stderr only.  Every child runs under a watchdog (spawnSync's
// timeout), so a process that the preload kept alive fails the test instead of hanging it.

const path = require('path');
const { spawnSync } = require('child_process');
const { ROOT, PRELOAD, probe, expectImpl } = require('./helpers/child');

const REPORT_PRELOAD = path.join(ROOT, 'lib', 'report-preload.js');
const WATCHDOG_MS = 20000;

/*
 * the snippet natively ('native'), with qtimers ('qtimers') or with the report preload
 * ('report'), which must have run on what it says (test/helpers/probe.js)
 */
function run(mode, source) {
  const seen = probe();
  const argv = seen.argv.concat(mode === 'report' ? ['-r', REPORT_PRELOAD] : mode === 'qtimers' ? ['-r', PRELOAD] : []);
  argv.push('-e', `const ROOT = ${JSON.stringify(ROOT)};\n${source}`);
  const res = spawnSync(process.execPath, argv, { encoding: 'utf8', timeout: WATCHDOG_MS, env: Object.assign({}, process.env, seen.env) });
  const out = { status: res.status, signal: res.signal, stdout: res.stdout, stderr: res.stderr, timedOut: res.error !== undefined,
    installed: seen.installed(res.pid) };
  return expectImpl(out, mode === 'native' ? 'native' : 'qtimers');
}

/* the same snippet in all three modes: the same status, stdout, and (but for the report) stderr */
function sameAsNative(t, source) {
  const native = run('native', source);
  const qtimers = run('qtimers', source);
  const report = run('report', source);
  for (const res of [native, qtimers, report]) t.ok(!res.timedOut && res.signal === null, `ended by itself: ${JSON.stringify(res)}`);
  t.equal(qtimers.status, native.status, qtimers.stderr);
  t.equal(report.status, native.status, report.stderr);
  t.equal(qtimers.stdout, native.stdout);
  t.equal(report.stdout, native.stdout);
  return { native, qtimers, report };
}

module.exports = {
  'report(): the summary lines and one row per pending handle, soonest first': function(t) {
    const res = run('native', `
      const qt = require(ROOT + '/lib/standalone');
      qt.trackOrigins(true);
      qt.setTimeout(function poll() {}, 5000);
      qt.setInterval(function heartbeat() {}, 1000).unref();
      qt.setImmediate(function soon() {});
      qt.setTimeout(() => { throw new Error('x'); }, 1);
      process.on('uncaughtException', () => {
        setTimeout(() => { console.log(JSON.stringify(qt.report())); process.exit(0); }, 20);
      });
    `);
    t.equal(res.status, 0, res.stderr);
    const text = JSON.parse(res.stdout.trim());
    const lines = text.split('\n');
    t.ok(/^qtimers report \(pid \d+, Node v[\d.]+\)$/.test(lines[0]), lines[0]);
    t.equal(lines[1], 'pending: 0 immediates (0 referenced), 1 timeout and 1 interval (1 referenced)');
    t.equal(lines[2], 'delays pending: 2; largest lists: 1000 ms x 1, 5000 ms x 1');
    t.equal(lines[3], 'callbacks run: immediates 1 in 1 turn (0 threw), timeouts and intervals 1 in 1 wakeup (1 threw)');
    t.ok(/^lateness of 1 fired: mean \d+ ms, p50 \d+ ms, p99 \d+ ms, max \d+ ms$/.test(lines[4]), lines[4]);
    t.equal(lines[5], '');
    t.ok(/^kind +delay +due in +ref +callback +created at$/.test(lines[6]), lines[6]);
    t.ok(/^interval +1000 +\d+ +no +heartbeat +\[eval\]:6:10$/.test(lines[7]), lines[7]);
    t.ok(/^timeout +5000 +\d+ +yes +poll +\[eval\]:5:10$/.test(lines[8]), lines[8]);
    t.equal(lines.length, 10, text);
    t.equal(lines[9], '', 'ends with a newline');
    t.done();
  },

  'report(): without origins there is no origin column; beyond 50 rows it says how many more': function(t) {
    const res = run('native', `
      const qt = require(ROOT + '/lib/standalone');
      for (let i = 0; i < 60; i++) qt.setTimeout(function many() {}, 1000 + i);
      console.log(JSON.stringify(qt.report()));
      process.exit(0);
    `);
    t.equal(res.status, 0, res.stderr);
    const lines = JSON.parse(res.stdout.trim()).split('\n');
    const header = lines.findIndex((l) => l.startsWith('kind'));
    t.ok(/^kind +delay +due in +ref +callback$/.test(lines[header]), lines[header]);
    t.ok(/^timeout +1000 +\d+ +yes +many$/.test(lines[header + 1]), lines[header + 1]);
    t.ok(/^timeout +1049 /.test(lines[header + 50]), lines[header + 50]);
    t.equal(lines[header + 51], '... and 10 more (qtimers.pending() lists them all)');
    t.equal(lines[header + 52], '(qtimers.trackOrigins(true) at startup adds where each was created)');
    t.done();
  },

  'the preload: a program with nothing pending exits as natively, and prints nothing': function(t) {
    const { report } = sameAsNative(t, `
      // 50 ms: a loaded machine's pause of 5 ms before the first loop turn let a 5 ms timeout
      // go first in one of the three runs, natively or not, in about one test of three
      setTimeout(() => console.log('timeout'), 50);
      setImmediate(() => console.log('immediate'));
      setInterval(() => {}, 1000).unref();       // unref'd: not what keeps a process alive
      process.exitCode = 3;
    `);
    t.equal(report.status, 3);
    t.equal(report.stderr, '');
    const empty = sameAsNative(t, '');
    t.equal(empty.report.status, 0);
    t.equal(empty.report.stderr, '');
    t.done();
  },

  'the preload: process.exit() with a referenced timer pending prints the report, exit status kept': function(t) {
    const { native, report } = sameAsNative(t, `
      setTimeout(function leaked() {}, 60000);
      setInterval(function ticking() {}, 1000).unref();
      setTimeout(() => { console.log('exiting'); process.exit(7); }, 10);
    `);
    t.equal(native.status, 7);
    t.equal(native.stderr, '');
    t.ok(/^qtimers report \(pid \d+/.test(report.stderr), report.stderr);
    t.ok(/pending: 0 immediates \(0 referenced\), 1 timeout and 1 interval \(1 referenced\)/.test(report.stderr), report.stderr);
    t.ok(/\ntimeout +60000 +\d+ +yes +leaked\n/.test(report.stderr), report.stderr);
    t.ok(/\ninterval +1000 +\d+ +no +ticking\n/.test(report.stderr), report.stderr);
    t.done();
  },

  'the preload: process.exit() with only unref\'d timers pending prints nothing': function(t) {
    const { report } = sameAsNative(t, `
      setTimeout(() => {}, 60000).unref();
      setImmediate(() => {}).unref();
      process.exit(0);
    `);
    t.equal(report.stderr, '');
    t.done();
  },

  'the preload: SIGUSR2 prints the report, the program goes on and ends by itself': function(t) {
    const source = `
      const timer = setTimeout(function waiting() {}, 60000);
      setTimeout(() => process.kill(process.pid, 'SIGUSR2'), 5);
      setTimeout(() => { console.log('still running'); clearTimeout(timer); }, 200);
    `;
    const res = run('report', source);
    t.ok(!res.timedOut && res.signal === null, JSON.stringify(res));
    t.equal(res.status, 0, res.stderr);
    t.equal(res.stdout, 'still running\n');
    t.ok(/^qtimers report \(pid \d+/.test(res.stderr), res.stderr);
    t.ok(/\ntimeout +60000 +\d+ +yes +waiting\n/.test(res.stderr), res.stderr);
    // without the preload (natively, or with qtimers) SIGUSR2 ends the process
    for (const mode of ['native', 'qtimers']) {
      const other = run(mode, source);
      t.equal(other.signal, 'SIGUSR2', mode);
    }
    t.done();
  },

  'the preload installs qtimers: the program runs on qtimers\' timers': function(t) {
    const res = run('report', `
      console.log(JSON.stringify([require(ROOT).isInstalled(), typeof globalThis.currentTimestamp, require(ROOT + '/lib/report-preload')]));
    `);
    t.equal(res.status, 0, res.stderr);
    t.equal(res.stdout.trim(), '[true,"function",{}]');
    t.done();
  },
};
