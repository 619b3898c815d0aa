'use strict';
// `npm run bench:apps` (benchmark/apps/): every workload runs, for a fraction of a second, natively
// and with qtimers, and reports sane positive figures; the options parse as --help says; the CPU
// share of Node's timers is computed as its definition says, from a profile whose samples see
// work woken by a 1 ms timer.  Nothing here times anything or writes results (the results files
// are checked untouched).

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { twoAtATime, PRELOAD, ROOT } = require('../helpers/child');

const APPS = path.join(ROOT, 'benchmark', 'apps');
const appOptions = require('../../benchmark/apps/options');
const runner = require('../../benchmark/apps/runner');
const report = require('../../benchmark/apps/report');
const { ORDER, load } = require('../../benchmark/apps/child');
const { timerShare, readProfile, SAMPLING_INTERVAL_US } = require('../../benchmark/apps/profile');
const RESULT_FILES = ['apps.md', 'apps.svg', 'quick/apps.md', 'quick/apps.svg'].map((f) => path.join(ROOT, 'benchmark', 'results', f));

function stamps() {
  return RESULT_FILES.map((file) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : null));
}

// runChild is synchronous; two children at a time need their own processes, so each pair of
// runs of one workload is one small node process calling runChild
function runBothModes(name, done) {
  const script = `const runner = require(${JSON.stringify(path.join(APPS, 'runner.js'))});
    const options = { node: process.execPath, qtimers: ${JSON.stringify(PRELOAD)} };
    console.log(JSON.stringify({ native: runner.runChild(${JSON.stringify(name)}, 'native', 'smoke', options),
      qtimers: runner.runChild(${JSON.stringify(name)}, 'qtimers', 'smoke', options) }));`;
  const child = require('child_process').spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  // the watchdog over both runs (each child also has its own, in runChild)
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 60000);
  child.on('close', (code) => {
    clearTimeout(watchdog);
    let parsed = null;
    try { parsed = JSON.parse(out.trim().split('\n').pop()); } catch (e) { /* reported below */ }
    done(parsed, code, err);
  });
}

// The children run in before(), which qnit does not time out (each has its own watchdog); the
// tests look at what they reported.
const outcomes = {};
const cli = {};
let profiled = null;
let stampsBefore = null;

function runCli(args) {
  return spawnSync(process.execPath, [path.join(APPS, 'run.js')].concat(args), { encoding: 'utf8', timeout: 20000 });
}

module.exports = {
  before: function(done) {
    stampsBefore = stamps();
    twoAtATime(ORDER.concat('profile'), (name, finished) => {
      if (name === 'profile') {
        // async-immediate's workers call back through setImmediate: the timers are a visible share
        const options = { node: process.execPath, qtimers: PRELOAD };
        profiled = runner.profileShare('async-immediate', 'smoke', options, runner.checkEnvironment(options));
        cli.help = runCli(['--help']);
        cli.unknown = runCli(['--only', 'nope']);
        cli.badNode = runCli(['--only', 'yielding', '--node', path.join(os.tmpdir(), 'no-such-node')]);
        return finished();
      }
      runBothModes(name, (parsed, code, err) => {
        outcomes[name] = { parsed, code, err };
        finished();
      });
    }, done);
  },

  'every workload runs natively and with qtimers and reports positive figures': function(t) {
    for (const name of ORDER) {
      const { parsed, code, err } = outcomes[name];
      t.equal(code, 0, name + ': runner exit code; ' + err);
      t.ok(parsed, name + ': runner output');
      if (!parsed) continue;
      for (const mode of ['native', 'qtimers']) {
        const result = parsed[mode];
        t.ok(!result.error, name + ' ' + mode + ': ' + result.error);
        if (result.error) continue;
        for (const metric of load(name).metrics) {
          const value = result.metrics[metric.key];
          t.ok(typeof value === 'number' && isFinite(value) && value > 0, name + ' ' + mode + ' ' + metric.key + ' = ' + value);
        }
        t.ok(result.units > 0, name + ' ' + mode + ': units of work in the window ' + result.units);
        t.ok(result.cpuSeconds > 0 && result.wallSeconds > 0, name + ' ' + mode + ': window measured');
        t.ok(result.windowUs[1] > result.windowUs[0], name + ' ' + mode + ': window on the clock');
        t.ok(Number.isInteger(result.contextSwitches) && result.contextSwitches >= 0,
          name + ' ' + mode + ': context switches in the window ' + result.contextSwitches);
      }
    }
    t.done();
  },

  'a workload that reports a checksum checks it: each run\'s passes, one off by one fails': function(t) {
    const checked = ORDER.filter((name) => typeof load(name).check === 'function');
    t.deepEqual(checked, ['job-queue', 'async', 'async-immediate', 'yielding']);
    for (const name of checked) {
      const { parsed } = outcomes[name];
      if (!parsed) continue;    // reported by the test above
      for (const mode of ['native', 'qtimers']) {
        const result = parsed[mode];
        if (result.error) continue;
        t.equal(load(name).check(result), null, name + ' ' + mode);
        const wrong = load(name).check(Object.assign({}, result, { checksum: (result.checksum + 1) | 0 }));
        t.ok(typeof wrong === 'string' && wrong.includes('checksum'), name + ' ' + mode + ' off by one: ' + wrong);
      }
    }
    t.done();
  },

  'side by side, both builds run at once and report positive figures; a hung child is killed': function(t) {
    const options = { node: process.execPath, qtimers: PRELOAD };
    // the quick size: windows of 1.5 s, which a loaded machine's slow start cannot pull apart
    const [first, second] = runner.runPair('async', ['qtimers', 'native'], 'quick', options);
    t.ok(!first.error && !second.error, JSON.stringify([first.error, second.error]));
    t.ok(first.metrics.itemsPerCpuSecond > 0 && second.metrics.itemsPerCpuSecond > 0, 'both measured');
    // the two windows overlap: both ran through the same moments
    t.ok(first.windowUs[0] < second.windowUs[1] && second.windowUs[0] < first.windowUs[1],
      'the windows overlap: ' + JSON.stringify([first.windowUs, second.windowUs]));
    // pair.js's own watchdog: a child that never ends is killed and reported, the other is read
    const res = spawnSync(process.execPath, [path.join(APPS, 'pair.js'), JSON.stringify([
      { node: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], cwd: ROOT, timeoutMs: 300 },
      { node: process.execPath, args: ['-e', 'console.log("RESULT {}")'], cwd: ROOT, timeoutMs: 10000 },
    ])], { encoding: 'utf8', timeout: 20000 });
    t.equal(res.status, 0, res.stderr);
    const ended = JSON.parse(res.stdout);
    t.equal(ended[0].timedOut, true);
    t.equal(ended[0].signal, 'SIGKILL');
    t.equal(ended[1].status, 0);
    t.equal(ended[1].stdout.trim(), 'RESULT {}');
    t.done();
  },

  'nothing was written to the results': function(t) {
    t.deepEqual(stamps(), stampsBefore);
    t.done();
  },

  'the profiled native run gives a share of Node\'s timers between 0 and 1': function(t) {
    t.ok(!profiled.error, profiled.error);
    t.ok(profiled.share > 0 && profiled.share < 1, 'share ' + profiled.share);
    t.ok(profiled.busySamples > 10, 'samples ' + profiled.busySamples);
    t.done();
  },

  'the profile run samples often enough, and out of step with a 1 ms timer, to see the work it wakes': function(t) {
    // V8's default (a sample a millisecond) saw such work in 0.6% of its samples, sampling in step
    // with the timer while the loop slept; the work takes about 30% of the wall time
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qtimers-burst-prof-'));
    try {
      const res = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir=' + dir, '--cpu-prof-interval',
        String(SAMPLING_INTERVAL_US), path.join(__dirname, '..', 'fixtures', 'bench', 'burst.js')], { encoding: 'utf8', timeout: 30000 });
      t.equal(res.status, 0, res.stderr);
      const { busySamples, idleSamples } = timerShare(readProfile(dir), null);
      const busy = busySamples / (busySamples + idleSamples);
      t.ok(busy > 0.1, `busy in ${busySamples} of ${busySamples + idleSamples} samples`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    t.done();
  },

  'the share counts node-internal code under a timers frame, up to the first user frame': function(t) {
    // (root) > processTimers (timers) > listOnTimeout (timers) > userCallback (file) > helper (node:util)
    //        > (idle); (root) > main (file) > setTimeout (node:timers) > insert (node:internal/timers) > now (native)
    const frame = (id, functionName, url, children) => ({ id, callFrame: { functionName, url }, children: children || [] });
    const profile = {
      nodes: [
        frame(1, '(root)', '', [2, 6, 7, 8]),
        frame(2, 'processTimers', 'node:internal/timers', [3]),
        frame(3, 'listOnTimeout', 'node:internal/timers', [4]),
        frame(4, 'userCallback', 'file:///app.js', [5]),
        frame(5, 'inspect', 'node:internal/util/inspect'),
        frame(6, '(idle)', ''),
        frame(7, 'main', 'file:///app.js', [9]),
        frame(8, '(garbage collector)', ''),
        frame(9, 'setTimeout', 'node:timers', [10]),
        frame(10, 'insert', 'node:internal/timers', [11]),
        frame(11, 'getLibuvNow', ''),
      ],
      startTime: 1000,
      // timers: 2, 3, 10, 11; not: 4, 5, 7, 8; idle: 6 (left out); the last one is outside the window
      samples: [2, 3, 4, 5, 6, 7, 8, 10, 11, 6, 2],
      timeDeltas: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 100],
    };
    const inWindow = timerShare(profile, [1000, 1010]);
    t.equal(inWindow.busySamples, 8);
    t.equal(inWindow.timerSamples, 4);
    t.equal(inWindow.idleSamples, 2);
    t.equal(inWindow.share, 0.5);
    t.equal(timerShare(profile, null).timerSamples, 5, 'without a window every sample counts');
    t.done();
  },

  'the async.js and job queue rows make several shorter pairs of runs a round, the others one, and the table says so': function(t) {
    for (const name of ORDER) {
      for (const size of ['full', 'quick']) {
        const pairs = load(name).sizes[size].pairsPerRound || 1;
        const lottery = name.startsWith('async') || name === 'job-queue';
        t.ok(Number.isInteger(pairs) && (pairs > 1) === lottery, name + ' ' + size + ': ' + pairs + ' a round');
      }
    }
    const row = (name) => ({ name, title: load(name).title, describe: load(name).describe, share: 0.01,
      rows: [{ label: 'x', unit: 'u', better: 'higher', native: 1, qtimers: 1, ratio: 1, ratioMin: 1, ratioMax: 1 }] });
    const env = { version: 'v0', arch: 'x64', cpu: 'cpu', cores: 2 };
    const table = report.markdownTable([row('heartbeats'), row('async')], env, { size: 'full', rounds: 5 }, 1);
    const pairs = load('async').sizes.full.pairsPerRound;
    t.ok(table.includes(load('async').title + ' (' + pairs + ' pairs a round, ' + pairs * 5 + ' in all)'), table);
    t.ok(!/Pairs of shorter runs/.test(report.markdownTable([row('heartbeats')], env, { size: 'full', rounds: 5 }, 1)), 'no note without such a row');
    t.done();
  },

  'the HTTP load generator\'s p99 is the nearest-rank percentile of the response times, fractions kept': function(t) {
    const { percentile } = require('../../benchmark/apps/loadgen');
    const times = [];
    for (let i = 200; i >= 1; i--) times.push(i / 100);     // 0.01 .. 2.00 ms, unsorted
    t.equal(percentile(times, 99), 1.98);
    t.equal(percentile([7.25], 99), 7.25);
    t.equal(percentile([3, 1, 2], 50), 2);
    t.ok(Number.isNaN(percentile([], 99)), 'no responses: no figure');
    t.done();
  },

  'options parse as --help says, and bad ones are usage errors': function(t) {
    const defaults = appOptions.parseArgs([]);
    t.equal(defaults.quick, false);
    t.equal(defaults.rounds, 5);
    t.equal(defaults.size, 'full');
    t.deepEqual(defaults.workloads, ORDER);
    const quick = appOptions.parseArgs(['--quick']);
    t.equal(quick.rounds, 1);
    t.equal(quick.size, 'quick');
    const some = appOptions.parseArgs(['--only', 'ttl-cache,http', '--rounds', '5', '--node', '/usr/bin/node']);
    t.deepEqual(some.workloads, ['http', 'ttl-cache'], 'in table order');
    t.equal(some.rounds, 5);
    t.equal(some.node, '/usr/bin/node');
    // side by side by default, every workload but http, whose load generator needs the other core
    for (const name of ORDER) t.equal(runner.sideBySide(name, defaults), name !== 'http', name + ' side by side');
    const alone = appOptions.parseArgs(['--alone']);
    t.equal(alone.alone, true);
    t.deepEqual(alone.workloads, ORDER);
    for (const name of ORDER) t.equal(runner.sideBySide(name, alone), false, name + ' alone with --alone');
    for (const bad of [['--rounds', '0'], ['--rounds', '1.5'], ['--rounds'], ['--only', 'nope'], ['--only', ''],
      ['--node'], ['--bogus'], ['--paired']]) {
      t.throws(() => appOptions.parseArgs(bad), appOptions.UsageError, JSON.stringify(bad));
    }
    for (const name of ORDER) t.ok(appOptions.HELP.includes(name), '--help names ' + name);
    for (const option of ['--quick', '--rounds', '--only', '--node', '--alone', '--help']) t.ok(appOptions.HELP.includes(option), '--help has ' + option);

    t.equal(cli.help.status, 0);
    t.equal(cli.help.stdout.trim(), appOptions.HELP);
    t.equal(cli.unknown.status, 2);
    t.ok(/--only: unknown workload nope/.test(cli.unknown.stderr), cli.unknown.stderr);
    t.equal(cli.badNode.status, 2, 'a node that cannot run is a usage error: ' + cli.badNode.stderr);
    t.done();
  },
};
