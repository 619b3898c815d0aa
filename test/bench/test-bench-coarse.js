'use strict';
// `npm run bench:coarse` (benchmark/coarse/) and the coarse rows of bench:apps and bench:bounds:
// every scenario runs, for a fraction of a second, natively, with exact qtimers and with coarse
// qtimers (the coarse build really has coarse mode on, the exact one off), and the call-rate ones
// with the bound (timers that cost nothing), the table carries the
// issue's targets and the lateness bound, the apps' coarse variants run coarse only under
// qtimers and are refused when QTIMERS_COARSE does not turn coarse mode on, and nothing is
// written to the results.  Nothing here times anything.

const fs = require('fs');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const { ROOT, PRELOAD } = require('../helpers/child');
const coarse = require('../../benchmark/coarse/run');
const { SCENARIOS } = require('../../benchmark/coarse/scenarios');
const apps = require('../../benchmark/apps/runner');
const { ORDER, load } = require('../../benchmark/apps/child');
const { PLAN } = require('../../benchmark/apps/bounds');

const RUN = path.join(ROOT, 'benchmark', 'coarse', 'run.js');
const stamp = () => (fs.existsSync(coarse.RESULT_FILE) ? fs.statSync(coarse.RESULT_FILE).mtimeMs : null);

let smoke = null;
let stampBefore = null;
const variants = {};

module.exports = {
  before: function(done) {
    stampBefore = stamp();
    // the whole suite at its smoke size in a process of its own, while the apps' variants run here
    const child = spawn(process.execPath, [RUN, '--smoke'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const watchdog = setTimeout(() => child.kill('SIGKILL'), 90000);
    const options = { node: process.execPath, qtimers: PRELOAD };
    for (const name of ['heartbeats-coarse', 'ttl-cache-coarse']) {
      variants[name] = { native: apps.runChild(name, 'native', 'smoke', options), qtimers: apps.runChild(name, 'qtimers', 'smoke', options) };
    }
    // the same command line, but QTIMERS_COARSE left out of the environment
    const env = Object.assign({}, process.env);
    delete env.QTIMERS_COARSE;
    variants.unset = spawnSync(process.execPath, apps.childArgs('heartbeats-coarse', 'qtimers', 'smoke', options),
      { cwd: ROOT, env, encoding: 'utf8', timeout: 60000 });
    child.on('close', (code) => {
      clearTimeout(watchdog);
      smoke = { code, stdout, stderr };
      done();
    });
  },

  'bench:coarse --smoke runs every scenario natively, exact and coarse, and prints the targets': function(t) {
    t.equal(smoke.code, 0, smoke.stdout + smoke.stderr);
    for (const name of Object.keys(SCENARIOS)) {
      for (const build of ['native', 'exact', 'coarse']) {
        t.ok(new RegExp('\\] ' + name + ' ' + build + ': ').test(smoke.stdout), name + ' ' + build + ' ran:\n' + smoke.stdout);
      }
    }
    for (const name of ['refresh', 'setclear']) t.ok(new RegExp('\\] ' + name + ' bound: ').test(smoke.stdout), name + ': the bound ran');
    const rows = smoke.stdout.split('\n').filter((l) => /^\| /.test(l));
    for (const [, label] of coarse.ROWS) {
      const row = rows.find((l) => l.startsWith('| ' + label.trim() + ' |'));
      t.ok(row, label + ': a row');
      // native, exact and coarse figures are numbers
      if (row) t.ok(row.split('|').slice(3, 6).every((cell) => /\d/.test(cell)), row);
    }
    t.ok(rows.some((l) => /\(>= 4x\) \| [\d.]+x/.test(l)), 'the 4x targets are shown, with the bound:\n' + rows.join('\n'));
    t.ok(rows.some((l) => /coarse <= 1\/8 of native\) \|/.test(l)), 'the wakeups target is shown');
    t.ok(rows.some((l) => /^\| coarse \|.*1\/8 beyond native's max \|$/.test(l)), 'the lateness bound is shown');
    t.ok(/load average \d+\.\d\d at the start/.test(smoke.stdout), 'the load average is reported');
    t.done();
  },

  'the coarse build turns coarse mode on through QTIMERS_COARSE=1, the exact and native builds do not': function(t) {
    const opts = coarse.parseArgs(['--smoke']);
    t.equal(coarse.buildCommand('coarse', 'refresh', opts).env.QTIMERS_COARSE, '1');
    const exact = coarse.buildCommand('exact', 'refresh', opts);
    t.equal(exact.env.QTIMERS_COARSE, undefined);
    t.deepEqual(exact.args.slice(0, 3), ['--expose-gc', '-r', opts.qtimers]);
    t.equal(coarse.buildCommand('native', 'refresh', opts).args.includes('-r'), false);
    // every build may collect before a wakeups window (scenarios.js), so none starts in a collection
    for (const build of ['native', 'exact', 'coarse', 'bound']) {
      t.equal(coarse.buildCommand(build, 'wakeups', opts).args[0], '--expose-gc', build);
    }
    // what the children said of themselves (run.js refuses a coarse child with coarse mode off)
    const coarseChild = coarse.runChild('coarse', 'refresh', opts);
    t.ok(!coarseChild.error, coarseChild.error);
    t.equal(coarseChild.coarse && coarseChild.coarse.on, true);
    t.ok(coarseChild.coarse.from <= 30000, 'the 30 s timers are at or above the threshold: ' + coarseChild.coarse.from);
    const exactChild = coarse.runChild('exact', 'refresh', opts);
    t.equal(exactChild.coarse && exactChild.coarse.on, false);
    t.done();
  },

  'the apps\' coarse variants run coarse under qtimers, plainly natively, and refuse exact timers': function(t) {
    for (const name of ['heartbeats-coarse', 'ttl-cache-coarse']) {
      const { native, qtimers } = variants[name];
      t.ok(!native.error && !qtimers.error, name + ': ' + JSON.stringify([native.error, qtimers.error]));
      if (native.error || qtimers.error) continue;
      t.equal(native.coarseFrom, undefined, name + ' natively: no coarse mode');
      t.ok(qtimers.coarseFrom <= 1000, name + ': threshold ' + qtimers.coarseFrom);
      // qtimers.stats() said something of coarse timers
      t.ok(Object.keys(qtimers.coarseStats).length > 0, name + ': ' + JSON.stringify(qtimers.coarseStats));
      for (const size of ['full', 'quick', 'smoke']) t.ok(load(name).sizes[size], name + ' ' + size);
      t.equal(load(name).env.QTIMERS_COARSE, '1');
    }
    t.ok(variants['heartbeats-coarse'].qtimers.pings > 0, 'heartbeats: coarse pings fired');
    t.notEqual(variants.unset.status, 0, 'without QTIMERS_COARSE the variant refuses to run');
    t.ok(/did not turn coarse mode on/.test(variants.unset.stderr), variants.unset.stderr);
    t.done();
  },

  'bench:apps and bench:bounds list the coarse variants beside their workloads': function(t) {
    t.ok(ORDER.indexOf('heartbeats-coarse') === ORDER.indexOf('heartbeats') + 1);
    t.ok(ORDER.indexOf('ttl-cache-coarse') === ORDER.indexOf('ttl-cache') + 1);
    for (const { name, variants: list } of PLAN) {
      const variant = list.find((v) => v.workload);
      t.equal(variant && variant.workload, name + '-coarse');
      t.deepEqual(variant.preloads, [null], 'this qtimers, nothing else');
      t.deepEqual(load(variant.workload).sizes.full, load(name).sizes.full, 'the same work as the native row');
    }
    t.done();
  },

  'the table marks each target met or missed, and lateness beyond native\'s against 1/8': function(t) {
    const f = (v) => ({ perCpuSecond: v, busy: { turnsPerSecond: v, cpuPerSecond: v }, idle: { turnsPerSecond: v, cpuPerSecond: v } });
    const late = (max) => ({ fired: 10, p50: max / 2, p99: max, max, early: 0, worstEarlyMs: 0 });
    const measured = {
      results: {
        refresh: { native: [f(1), f(1)], exact: [f(2), f(2)], coarse: [f(5), f(3)], bound: [f(6), f(6)] },
        wakeups: { native: [f(800)], exact: [f(800)], coarse: [f(50)] },
        lateness: { native: [late(0.02)], exact: [late(0.02)], coarse: [late(0.14)] },
      },
      size: 'full',
    };
    const text = coarse.markdown(measured, 'HEADER');
    const rows = coarse.tableRows(measured);
    t.equal(rows[0].coarseRatio, '4.00x (3.00-5.00)');
    t.equal(rows[0].verdict, 'met (>= 4x)');
    t.equal(rows[0].boundRatio, '6.00x');
    t.equal(rows[1].boundRatio, '-', 'no bound for wakeups');
    t.equal(rows[1].coarseRatio, '16.00x', 'wakeups: native / coarse');
    t.equal(rows[1].verdict, 'met (coarse <= 1/8 of native)');
    t.ok(/\| coarse \|.*\| 14\.00% \|.*\| within 1\/8 beyond native's max \|/.test(text), text);
    measured.results.lateness.coarse = [late(0.2)];
    t.ok(/BEYOND 1\/8 beyond native's max/.test(coarse.markdown(measured, 'HEADER')));
    measured.results.refresh.coarse = [f(2), f(3)];
    t.equal(coarse.tableRows(measured)[0].verdict, 'MISSED (>= 4x)');
    t.done();
  },

  'bad options are usage errors, and nothing was written to the results': function(t) {
    for (const bad of [['--rounds', '0'], ['--only', 'nope'], ['--bogus']]) {
      const res = spawnSync(process.execPath, [RUN].concat(bad), { encoding: 'utf8', timeout: 20000 });
      t.equal(res.status, 2, JSON.stringify(bad) + ' ' + res.stderr);
    }
    t.equal(stamp(), stampBefore);
    t.done();
  },
};
