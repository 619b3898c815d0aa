'use strict';
// `npm run bench:bounds` (benchmark/apps/bounds.js): each stand-in runs its workload, for a
// fraction of a second, and replaces exactly the timers it says it replaces (the others still
// fire); the table puts native first and every variant's advantage beside it; bad options get a
// usage error.  Nothing here times anything or writes results.

const path = require('path');
const { spawnSync } = require('child_process');
const { ROOT } = require('../helpers/child');
const { runChild, runSideBySide, childArgs } = require('../../benchmark/apps/runner');
const { PLAN, childOptions, table, resultFile } = require('../../benchmark/apps/bounds');
const { load } = require('../../benchmark/apps/child');

const BOUNDS = path.join(ROOT, 'benchmark', 'apps', 'bounds');
const QTIMERS = path.join(ROOT, 'index.js');
const PROBE = path.join(ROOT, 'test', 'fixtures', 'bench', 'timeouts-ran.js');

function withStandIn(name, file) {
  return runChild(name, 'qtimers', 'smoke', { node: process.execPath, qtimers: path.join(BOUNDS, file) });
}

module.exports = {
  'heartbeats\' stand-ins replace the idle timeouts only: pings still fire, no idle timeout does': function(t) {
    for (const file of ['idle-free.js', 'idle-stamp.js', 'idle-touch.js']) {
      const result = withStandIn('heartbeats', file);
      t.ok(!result.error, file + ': ' + result.error);
      t.ok(result.metrics.cpuPerMessage > 0 && result.units > 0, file + ': ' + JSON.stringify(result));
      t.ok(result.pings > 0, file + ': the ping timers (Node\'s) fired: ' + result.pings);
      t.equal(result.closed, 0, file + ': no idle timeout fired');
    }
    t.done();
  },

  'a variant with qtimers and a stand-in preloads qtimers first: its pings are qtimers\'': function(t) {
    const variant = PLAN[0].variants.find((v) => v.preloads.length === 2);
    const { mode, options } = childOptions(variant, { node: process.execPath, qtimers: QTIMERS });
    t.equal(mode, 'qtimers');
    t.deepEqual(options.extraArgs, ['-r', QTIMERS]);
    t.equal(options.qtimers, path.join(BOUNDS, 'idle-stamp.js'));
    // the command line runChild runs, with a probe between the two that reports at exit how
    // many timeout callbacks qtimers ran
    const probed = Object.assign({}, options, { extraArgs: options.extraArgs.concat('-r', PROBE) });
    const res = spawnSync(process.execPath, childArgs('heartbeats', mode, 'smoke', probed),
      { cwd: ROOT, encoding: 'utf8', timeout: 60000 });
    t.equal(res.status, 0, res.stderr);
    const result = JSON.parse(res.stdout.split('\n').find((l) => l.startsWith('RESULT ')).slice(7));
    t.ok(result.pings > 0, 'the ping timers fired: ' + result.pings);
    t.equal(result.closed, 0, 'no idle timeout fired');
    // the stand-in kept the setTimeout it found, qtimers': qtimers ran every ping (and the
    // arrivals' interval), no idle timeout
    const ran = Number((/TIMEOUTS_RAN (\d+)/.exec(res.stderr) || [])[1]);
    t.ok(ran >= result.pings, 'qtimers ran ' + ran + ' timeout callbacks for ' + result.pings + ' pings');
    t.done();
  },

  'a variant runs side by side with a native run, each with its own preloads': function(t) {
    const opts = { node: process.execPath, qtimers: QTIMERS };
    const stamp = childOptions(PLAN[0].variants.find((v) => v.preloads.length === 2), opts);
    const native = childOptions({ label: 'native', preloads: [] }, opts);
    t.equal(native.mode, 'native');
    const [first, second] = runSideBySide('heartbeats', [native, stamp], 'smoke');
    t.ok(!first.error && !second.error, JSON.stringify([first.error, second.error]));
    t.ok(first.closed > 0, 'native: idle timeouts fired, as natively: ' + first.closed);
    t.equal(second.closed, 0, 'the variant: its idle timeouts are stand-ins');
    // (that the two run at once, their windows overlapping, test-bench-apps checks at a size
    // long enough for it; these smoke windows are shorter than a start-up)
    t.done();
  },

  'the TTL cache\'s stand-ins run the cache, its 1 ms timer still Node\'s': function(t) {
    for (const file of ['ttl-free.js', 'ttl-fire.js', 'ttl-handle.js']) {
      const result = withStandIn('ttl-cache', file);
      t.ok(!result.error, file + ': ' + result.error);
      t.ok(result.metrics.opsPerCpuSecond > 0 && result.entries > 0, file + ': ' + JSON.stringify(result));
    }
    t.done();
  },

  'ttl-fire\'s timers run their callbacks once due, never early, in the order armed, and keep no process alive': function(t) {
    // armed at three moments; each records how long after it was armed it ran (by hrtime)
    const program = `
      const ran = [];
      const arm = (name, ms) => { const at = process.hrtime.bigint();
        const handle = setTimeout(() => ran.push([name, ms, Number(process.hrtime.bigint() - at) / 1e6]), ms);
        if (handle.unref() !== handle) throw new Error('unref() returns the handle'); };
      arm('a', 30); arm('b', 30);
      const near = setTimeout(() => {}, 1);      // under 2 ms: a native timer
      if (typeof near.hasRef !== 'function' || !near.hasRef()) throw new Error('not a native timer');
      const busyUntil = Date.now() + 12; while (Date.now() < busyUntil);
      arm('c', 20);
      const keep = setInterval(() => {}, 1000);   // keeps the process alive: the stand-in's timers do not
      require('timers').setTimeout(() => { clearInterval(keep); console.log(JSON.stringify(ran)); }, 200);`;
    const res = spawnSync(process.execPath, ['-r', path.join(BOUNDS, 'ttl-fire.js'), '-e', program],
      { encoding: 'utf8', timeout: 20000 });
    t.equal(res.status, 0, res.stderr);
    const ran = JSON.parse(res.stdout);
    t.deepEqual(ran.map((r) => r[0]), ['a', 'b', 'c'], 'all ran, in the order armed');
    for (const [name, ms, after] of ran) t.ok(after >= ms - 1, name + ': ran ' + after.toFixed(2) + ' ms after being armed for ' + ms);
    // the stand-in's own interval is unref'd: with nothing else pending the process ends
    const idle = spawnSync(process.execPath, ['-r', path.join(BOUNDS, 'ttl-fire.js'), '-e', 'setTimeout(() => {}, 50)'],
      { encoding: 'utf8', timeout: 20000 });
    t.equal(idle.status, 0, 'exits on its own: ' + idle.stderr);
    t.equal(idle.signal, null);
    t.done();
  },

  'the table lists native first, then each variant with its median advantage and range': function(t) {
    const rows = PLAN.map(({ name, metric: key, variants, shares = [] }) => {
      const metric = load(name).metrics.find((m) => m.key === key);
      const all = [{ label: 'native' }].concat(variants);
      const values = all.map((v, i) => [10 + i, 20 + i, 30 + i]);
      const ratios = variants.map(() => [1.5, 1.25, 2]);
      return { name, metric, all, values, ratios, shares: shares.map((s) => ({ label: s.label, ratios: [0.9, 0.875, 0.95] })) };
    });
    const lines = table(rows, 'HEADER').split('\n');
    t.equal(lines[0], 'HEADER');
    const body = lines.filter((l) => /^\| /.test(l)).slice(1);
    const expected = PLAN.reduce((n, p) => n + 1 + p.variants.length + (p.shares || []).length, 0);
    t.equal(body.filter((l) => !/^\|---/.test(l)).length, expected, lines.join('\n'));
    t.ok(body.some((l) => /\| Connection heartbeats \| native \|.*\| 1\.00x \|$/.test(l)), lines.join('\n'));
    t.ok(body.some((l) => /idle timeouts that cost nothing .*\| 1\.50x \(1\.25-2\.00\) \|$/.test(l)), lines.join('\n'));
    t.ok(body.some((l) => /qtimers \/ its exact bound, paired directly \| share of the bound \| \| 0\.90 \(0\.88-0\.95\) \|$/.test(l)), lines.join('\n'));
    // every share names two variants of its row, which runShares runs side by side
    for (const { variants, shares = [] } of PLAN) {
      for (const share of shares) t.ok(variants.some((v) => v.label === share.of) && variants.some((v) => v.label === share.bound), share.label);
    }
    t.done();
  },

  'a full run on this Node writes results/bounds.md, on another bounds-nodeN.md': function(t) {
    t.equal(path.basename(resultFile(process.execPath, process.version)), 'bounds.md');
    t.equal(path.basename(resultFile('/elsewhere/bin/node', 'v99.1.2')), 'bounds-node99.md');
    t.done();
  },

  'bench:bounds refuses an unknown option with a usage error': function(t) {
    const res = spawnSync(process.execPath, [path.join(ROOT, 'benchmark', 'apps', 'bounds.js'), '--rounds', '0'],
      { encoding: 'utf8', timeout: 20000 });
    t.equal(res.status, 2, res.stderr);
    t.ok(/--rounds/.test(res.stderr), res.stderr);
    t.done();
  },
};
