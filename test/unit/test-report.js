'use strict';
// lib/report.js and lib/report-preload.js: report() puts stats() and pending() into a table for
// people, one row per group of pending handles made at one place, and `node -r qtimers/report
// app.js` prints it at exit when a referenced timer is still pending, and on the signal named by
// QTIMERS_REPORT_SIGNAL, if any.  The preload must not change the program: the same output, exit
// status and signals' effects as natively (and as with plain qtimers), a program with nothing
// pending exits as it would, and the report goes to stderr only; nodemon (the real one) restarts
// an app that loads it as one that does not.  Every child runs under a watchdog (spawnSync's
// timeout, or a process group killed on time), so a process that the preload kept alive fails
// the test instead of hanging it.

const fs = require('fs');
const os = require('os');
const path = require('path');
const childProcess = require('child_process');
const { spawnSync } = childProcess;
const { ROOT, PRELOAD, twoAtATime, probe, expectImpl } = require('../helpers/child');

const REPORT_PRELOAD = path.join(ROOT, 'lib', 'report-preload.js');
const WATCHDOG_MS = 20000;
// the preload's variables, off unless a test sets them (whatever the environment running the tests says)
const NO_VARIABLES = { QTIMERS_REPORT_SIGNAL: '', QTIMERS_ORIGINS: '' };

/*
 * the snippet natively ('native'), with qtimers ('qtimers') or with the report preload
 * ('report'), which must have run on what it says (test/helpers/probe.js); env: variables added
 * to the environment
 */
function run(mode, source, env) {
  const seen = probe();
  const argv = seen.argv.concat(mode === 'report' ? ['-r', REPORT_PRELOAD] : mode === 'qtimers' ? ['-r', PRELOAD] : []);
  argv.push('-e', `const ROOT = ${JSON.stringify(ROOT)};\n${source}`);
  const res = spawnSync(process.execPath, argv, { encoding: 'utf8', timeout: WATCHDOG_MS,
    env: Object.assign({}, process.env, NO_VARIABLES, env, seen.env) });
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

const NODEMON = path.join(ROOT, 'node_modules', 'nodemon', 'bin', 'nodemon.js');
const NODEMON_WATCHDOG_MS = 60000;
const SURVIVOR_WAIT_MS = 3000;
// an app as nodemon is used for: a server (here a referenced interval) that runs until stopped
const APP = "console.log('app started ' + process.pid);\nsetInterval(function serve() {}, 1000);\n";

/* whether a process is still running (a zombie, ended but not yet reaped, is not) */
function running(pid) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return err.code !== 'ESRCH';
  }
  try {
    // /proc/<pid>/stat: "pid (name) state ..."
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z';
  } catch (err) {
    return true;
  }
}

/*
 * The real nodemon running APP in a fresh directory with `node ...nodeArgs`, restarted its three
 * ways, each of which sends the app SIGUSR2 and starts it again once it has ended: `rs` on
 * stdin, SIGHUP to nodemon, a change of app.js.  Each step is taken when the app has printed
 * that it started.  After the fourth start, the three apps restarted away must be gone (given up
 * to SURVIVOR_WAIT_MS: natively they are gone before the next one starts); then nodemon's
 * process group (nodemon, its shell, the app, and any app it lost) is killed.  The watchdog
 * kills it sooner if the app never starts four times.
 * done({ starts: [pid, ...], survivors: [pid, ...], events: nodemon's own lines, out, err, timedOut })
 */
function underNodemon(nodeArgs, env, done) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qtimers-nodemon-'));
  const app = path.join(dir, 'app.js');
  fs.writeFileSync(app, APP);
  // an executable that is not `node`: nodemon runs it through sh -c, with or without -r
  const exec = [process.execPath, ...nodeArgs].map((a) => JSON.stringify(a)).join(' ');
  const child = childProcess.spawn(process.execPath, [NODEMON, '--no-update-notifier', '--no-colors', '--exec', exec, 'app.js'], {
    cwd: dir,
    env: Object.assign({}, process.env, NO_VARIABLES, env),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const starts = [];
  let survivors = null;
  let out = '';
  let err = '';
  let timedOut = false;
  const killGroup = () => {
    try { process.kill(-child.pid, 'SIGKILL'); } catch (e) { /* the group is gone */ }
  };
  const finish = (deadline) => {
    survivors = starts.slice(0, -1).filter(running);
    if (survivors.length > 0 && Date.now() < deadline) setTimeout(finish, 50, deadline);
    else killGroup();
  };
  const steps = [
    () => child.stdin.write('rs\n'),
    () => process.kill(child.pid, 'SIGHUP'),
    () => fs.appendFileSync(app, '// changed\n'),
    () => finish(Date.now() + SURVIVOR_WAIT_MS),
  ];
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    out += d;
    const pids = out.match(/^app started \d+$/gm) || [];
    while (starts.length < pids.length) {
      starts.push(Number(pids[starts.length].split(' ')[2]));
      const step = steps[starts.length - 1];
      if (step) step();
    }
  });
  child.stderr.on('data', (d) => { err += d; });
  const watchdog = setTimeout(() => { timedOut = true; killGroup(); }, NODEMON_WATCHDOG_MS);
  child.on('close', () => {
    clearTimeout(watchdog);
    fs.rmSync(dir, { recursive: true, force: true });
    // nodemon's lines that say what happened ("still waiting for a sub-process" only says how
    // fast an app ended, which load decides; an app left running is in `survivors`)
    const events = out.split('\n').filter((l) => /^\[nodemon\] (starting|restarting|clean exit|app crashed)/.test(l))
      .map((l) => l.replace(/`.*`/, '`app`'));
    done({ starts, survivors, events, out, err, timedOut });
  });
}

// the nodemon runs (before the tests: they take seconds each), by name: [node's arguments, env]
const NODEMON_RUNS = {
  native: [[], {}],
  report: [['-r', REPORT_PRELOAD], {}],
  'report with origins': [['-r', REPORT_PRELOAD], { QTIMERS_ORIGINS: '1' }],
};
const nodemonRuns = {};

module.exports = {
  before: function(done) {
    twoAtATime(Object.keys(NODEMON_RUNS), (name, finished) => {
      underNodemon(NODEMON_RUNS[name][0], NODEMON_RUNS[name][1], (res) => {
        nodemonRuns[name] = res;
        finished();
      });
    }, done);
  },

  'report(): the summary lines and one row per group of pending handles, soonest first': function(t) {
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
    t.ok(/^count +kind +delay +next due +referenced +callback +created at$/.test(lines[6]), lines[6]);
    t.ok(/^ +1 +interval +1000 +\d+ +0 +heartbeat +\[eval\]:6:10$/.test(lines[7]), lines[7]);
    t.ok(/^ +1 +timeout +5000 +\d+ +1 +poll +\[eval\]:5:10$/.test(lines[8]), lines[8]);
    t.equal(lines.length, 10, text);
    t.equal(lines[9], '', 'ends with a newline');
    t.done();
  },

  'report(): 10k timers made on one line are one row with their count; largest groups first, at most 50': function(t) {
    const source = (origins) => `
      const qt = require(ROOT + '/lib/standalone');
      qt.trackOrigins(${origins});
      for (let i = 0; i < 10000; i++) qt.setTimeout(function poll() {}, 60000);
      for (let i = 1; i <= 3; i++) qt.setInterval(function heartbeat() {}, 1000 * i).unref();
      for (let i = 0; i < 60; i++) qt.setTimeout({ ['job' + i]: function () {} }['job' + i], 500 + i);
      console.log(JSON.stringify(qt.report()));
      process.exit(0);
    `;
    // without origins: one group per callback; 63 groups, of which 50 are listed
    const plain = run('native', source(false));
    t.equal(plain.status, 0, plain.stderr);
    let lines = JSON.parse(plain.stdout.trim()).split('\n');
    let header = lines.findIndex((l) => l.startsWith('count'));
    t.ok(/^count +kind +delay +next due +referenced +callback$/.test(lines[header]), lines[header]);
    t.ok(/^10000 +timeout +60000 +\d+ +10000 +poll$/.test(lines[header + 1]), lines[header + 1]);
    t.ok(/^ +3 +interval +1000, 2000, 3000 +\d+ +0 +heartbeat$/.test(lines[header + 2]), lines[header + 2]);
    t.ok(/^ +1 +timeout +500 +\d+ +1 +job0$/.test(lines[header + 3]), lines[header + 3]);
    t.ok(/^ +1 +timeout +547 +\d+ +1 +job47$/.test(lines[header + 50]), lines[header + 50]);
    t.equal(lines[header + 51], '... and 12 more groups (12 pending; qtimers.pending() lists them all)');
    t.equal(lines[header + 52], '(QTIMERS_ORIGINS=1 with -r qtimers/report, or qtimers.trackOrigins(true) at startup, adds where each was created)');
    t.equal(lines.length, header + 54, lines.slice(header + 50).join('\n'));
    // with origins: one group per line of code, whatever the callbacks
    const tracked = run('native', source(true));
    t.equal(tracked.status, 0, tracked.stderr);
    lines = JSON.parse(tracked.stdout.trim()).split('\n');
    header = lines.findIndex((l) => l.startsWith('count'));
    t.ok(/^count +kind +delay +next due +referenced +callback +created at$/.test(lines[header]), lines[header]);
    t.ok(/^10000 +timeout +60000 +\d+ +10000 +poll +\[eval\]:5:42$/.test(lines[header + 1]), lines[header + 1]);
    t.ok(/^ +60 +timeout +500-559 +\d+ +60 +job0 and 59 others +\[eval\]:7:39$/.test(lines[header + 2]), lines[header + 2]);
    t.ok(/^ +3 +interval +1000, 2000, 3000 +\d+ +0 +heartbeat +\[eval\]:6:39$/.test(lines[header + 3]), lines[header + 3]);
    t.equal(lines.length, header + 5, lines.slice(header).join('\n'));
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
    t.ok(/\n +1 +timeout +60000 +\d+ +1 +leaked\n/.test(report.stderr), report.stderr);
    t.ok(/\n +1 +interval +1000 +\d+ +0 +ticking\n/.test(report.stderr), report.stderr);
    t.ok(!/created at/.test(report.stderr), 'no origins unless asked');
    // QTIMERS_ORIGINS=1 turns origins on at load: the report says where each group was made
    const tracked = run('report', `
      for (let i = 0; i < 100; i++) setTimeout(function leaked() {}, 60000);
      setTimeout(() => process.exit(7), 10);
    `, { QTIMERS_ORIGINS: '1' });
    t.equal(tracked.status, 7, tracked.stderr);
    t.ok(/\n +100 +timeout +60000 +\d+ +100 +leaked +\[eval\]:3:37\n/.test(tracked.stderr), tracked.stderr);
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

  'the preload adds no signal listener: SIGUSR2, SIGTERM, SIGINT and SIGHUP do what they do natively': function(t) {
    for (const signal of ['SIGUSR2', 'SIGTERM', 'SIGINT', 'SIGHUP']) {
      const source = `
        console.log(['SIGUSR2', 'SIGUSR1', 'SIGTERM', 'SIGINT', 'SIGHUP'].map((s) => process.listenerCount(s)).join(' '));
        setTimeout(function waiting() {}, 60000);
        setTimeout(() => process.kill(process.pid, '${signal}'), 5);
      `;
      const native = run('native', source);
      t.equal(native.signal, signal, `natively ${signal} ends the process`);
      // with the preload, and with it told to listen to another signal (or to none)
      for (const env of [{}, { QTIMERS_ORIGINS: '1' }, { QTIMERS_REPORT_SIGNAL: signal === 'SIGUSR2' ? 'SIGUSR1' : 'SIGUSR2' }]) {
        const label = `${signal} ${JSON.stringify(env)}`;
        const res = run('report', source, env);
        t.ok(!res.timedOut, label + ': ended');
        t.equal(res.signal, native.signal, label);
        t.equal(res.status, native.status, label);
        const listening = env.QTIMERS_REPORT_SIGNAL === undefined ? native.stdout : env.QTIMERS_REPORT_SIGNAL === 'SIGUSR1' ? '0 1 0 0 0\n' : '1 0 0 0 0\n';
        t.equal(res.stdout, listening, label + ': the listeners');
        t.equal(res.stderr, '', label);
      }
    }
    t.done();
  },

  'QTIMERS_REPORT_SIGNAL=SIGUSR2: the signal prints the report, the program goes on and ends by itself': function(t) {
    const source = `
      const timer = setTimeout(function waiting() {}, 60000);
      setTimeout(() => process.kill(process.pid, 'SIGUSR2'), 5);
      setTimeout(() => { console.log('still running'); clearTimeout(timer); }, 200);
    `;
    const res = run('report', source, { QTIMERS_REPORT_SIGNAL: 'SIGUSR2' });
    t.ok(!res.timedOut && res.signal === null, JSON.stringify(res));
    t.equal(res.status, 0, res.stderr);
    t.equal(res.stdout, 'still running\n');
    t.ok(/^qtimers report \(pid \d+/.test(res.stderr), res.stderr);
    t.ok(/\n +1 +timeout +60000 +\d+ +1 +waiting\n/.test(res.stderr), res.stderr);
    // without the variable (natively, with qtimers, with the preload) SIGUSR2 ends the process
    for (const mode of ['native', 'qtimers', 'report']) {
      const other = run(mode, source);
      t.equal(other.signal, 'SIGUSR2', mode);
    }
    t.done();
  },

  'the preload\'s variables, not understood: one warning each (QTIMERS_REPORT_ENV), otherwise ignored': function(t) {
    const source = `
      process.on('warning', (w) => console.log(w.name, w.code));
      console.log(process.listenerCount('SIGUSR2'), process.listenerCount('SIGKILL'));
      setTimeout(() => process.kill(process.pid, 'SIGUSR2'), 5);
      setTimeout(function waiting() {}, 60000);
    `;
    const native = run('native', source);
    t.equal(native.signal, 'SIGUSR2');
    const cases = [
      [{ QTIMERS_REPORT_SIGNAL: 'USR2' }, /QTIMERS_REPORT_SIGNAL="USR2" is not a signal name such as SIGUSR2; it is ignored/],
      [{ QTIMERS_REPORT_SIGNAL: 'SIGKILL' }, /QTIMERS_REPORT_SIGNAL="SIGKILL" names a signal no listener can catch \(.*EINVAL.*\); it is ignored/],
      [{ QTIMERS_ORIGINS: 'yes' }, /QTIMERS_ORIGINS="yes" is not 1, true, 0 or false; it is ignored/],
    ];
    for (const [env, message] of cases) {
      const label = JSON.stringify(env);
      const res = run('report', source, env);
      t.equal(res.signal, 'SIGUSR2', label + ': the signal does what it does natively');
      t.equal(res.stdout, native.stdout + 'Warning QTIMERS_REPORT_ENV\n', label);   // warnings are emitted on the next tick
      t.equal((res.stderr.match(/\[QTIMERS_REPORT_ENV\] Warning: /g) || []).length, 1, label + ': one warning: ' + res.stderr);
      t.ok(message.test(res.stderr), label + ': ' + res.stderr);
    }
    t.done();
  },

  'nodemon restarts an app that loads the preload as one that does not (rs, SIGHUP, a file change)': function(t) {
    const native = nodemonRuns.native;
    t.ok(!native.timedOut, 'native: nodemon ended: ' + native.out + native.err);
    t.equal(native.starts.length, 4, 'native: started, and restarted three times: ' + native.out);
    t.deepEqual(native.survivors, [], 'native: every app ended');
    for (const name of ['report', 'report with origins']) {
      const res = nodemonRuns[name];
      t.ok(!res.timedOut, `${name}: nodemon ended: ${res.out} ${res.err}`);
      t.equal(res.starts.length, native.starts.length, `${name}: started and restarted as natively: ${res.out}`);
      t.deepEqual(res.survivors, [], `${name}: every app ended, as natively: ${res.out}`);
      t.deepEqual(res.events, native.events, `${name}: nodemon saw what it sees natively`);
      t.ok(!/qtimers report/.test(res.out + res.err), `${name}: no report (the apps ended by signal): ${res.err}`);
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
