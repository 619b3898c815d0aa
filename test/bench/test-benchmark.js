'use strict';
// The benchmark's scenario tables: what `npm run bench` hands each child process.  Timings are
// not tested here (no timed assertions); the options that decide what a row measures are, and
// what a --quick run says about its numbers and where it puts them (one half-second row).

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const scenariosDir = path.join(__dirname, '..', '..', 'benchmark', 'micro', 'scenarios');
const resultsDir = path.join(__dirname, '..', '..', 'benchmark', 'results');
const runJs = path.join(__dirname, '..', '..', 'benchmark', 'micro', 'run.js');
const families = fs.readdirSync(scenariosDir).filter((f) => f.endsWith('.js'));

function rows() {
  const all = [];
  for (const file of families) {
    const table = require(path.join(scenariosDir, file));
    for (const name of Object.keys(table)) all.push({ id: file.replace(/\.js$/, '') + '/' + name, def: table[name] });
  }
  return all;
}

module.exports = {
  'node options of a row are a list of options, or absent': function(t) {
    for (const { id, def } of rows()) {
      if (!('nodeArgs' in def)) continue;
      t.ok(Array.isArray(def.nodeArgs) && def.nodeArgs.length > 0, id + ': nodeArgs ' + JSON.stringify(def.nodeArgs));
      for (const arg of def.nodeArgs || []) t.ok(/^--[a-z]/.test(arg), id + ': ' + arg);
    }
    t.done();
  },

  'fixed-window rows (Cpu, setInterval) run without the memory reducer, natively and with qtimers': function(t) {
    const windowed = rows().filter(({ id }) => /^cpu\/|^timeouts\/interval/.test(id));
    t.ok(windowed.length >= 6, windowed.map((r) => r.id).join(' '));
    for (const { id, def } of windowed) {
      t.ok(Array.isArray(def.nodeArgs) && def.nodeArgs.includes('--no-memory-reducer'), id + ': ' + JSON.stringify(def.nodeArgs));
    }
    t.done();
  },

  'run.js lists every scenario of every family': function(t) {
    const out = execFileSync(process.execPath, [runJs, '--list'], { encoding: 'utf8' });
    for (const { id } of rows()) t.ok(out.includes(id), id + ' in --list');
    t.done();
  },

  // A quick run is one short round on whatever else the machine is doing: its numbers must say
  // so where they are read, and must never replace the measured results the README shows.
  'bench --quick calls its numbers indicative, before and under its table, and writes them apart from the committed results': function(t) {
    const committed = ['table.md', 'chart.svg'].map((name) => path.join(resultsDir, name));
    const before = committed.map(contents);
    const quickTable = path.join(resultsDir, 'quick', 'table.md');
    const startedMs = Date.now();
    // one row of about half a second a mode; the watchdog fails the test rather than hang it
    const out = execFileSync(process.execPath, [runJs, '--quick', '--only', '^basics/immediate-0$', '--no-chart'],
      { encoding: 'utf8', timeout: 60000, killSignal: 'SIGKILL' });
    const lines = out.split('\n');
    const firstRow = lines.findIndex((line) => /\[1\/1\] basics\/immediate-0 /.test(line));
    const tableEnd = lines.findIndex((line) => /^speedup = /.test(line));
    const caveats = lines.map((line, i) => (/indicative only/.test(line) ? i : -1)).filter((i) => i >= 0);
    t.ok(firstRow > 0 && tableEnd > firstRow, 'progress row and table footer found:\n' + out);
    t.ok(caveats.some((i) => i < firstRow), 'the caveat comes before the first measurement:\n' + out);
    t.ok(caveats.some((i) => i > tableEnd), 'the caveat is in the table\'s footer:\n' + out);
    t.deepEqual(committed.map(contents), before, 'benchmark/results/table.md and chart.svg are untouched');
    t.ok(fs.statSync(quickTable).mtimeMs >= startedMs - 1000, 'the quick table is written to benchmark/results/quick/');
    const written = fs.readFileSync(quickTable, 'utf8');
    t.ok(/--quick/.test(written) && /indicative only/.test(written), 'the written table carries the caveat:\n' + written);
    t.ok(/basics\/immediate-0|set\+clear setImmediate, 0 args/.test(written), 'and the row that ran');
    t.done();
  },

  // --qtimers PATH compares another build (another version, a patched copy) with native
  'bench --qtimers PATH preloads that entry point in the qtimers runs, and says so': function(t) {
    const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'qtimers-bench-entry-'));
    const entry = path.join(dir, 'entry.js');
    const marker = path.join(dir, 'loaded');
    fs.writeFileSync(entry, 'require("fs").appendFileSync(' + JSON.stringify(marker) + ', "x");\n' +
      'require(' + JSON.stringify(path.join(__dirname, '..', '..', 'index.js')) + ');\n');
    const out = execFileSync(process.execPath,
      [runJs, '--quick', '--only', '^basics/immediate-0$', '--no-chart', '--qtimers', entry],
      { encoding: 'utf8', timeout: 60000, killSignal: 'SIGKILL' });
    t.ok(/\[1\/1\] basics\/immediate-0 .*x\d/.test(out), 'the row ran with a speedup:\n' + out);
    t.ok(out.includes('qtimers from ' + entry), 'the run names the entry point:\n' + out);
    // once to check that it installs, once for the measured run
    t.equal(fs.readFileSync(marker, 'utf8'), 'xx');
    fs.rmSync(dir, { recursive: true, force: true });
    t.done();
  },

  // the README's table gives both positions: preloaded, and required by the app's first line
  'bench --load require runs the qtimers runs with qtimers required on the main module\'s first line': function(t) {
    const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'qtimers-bench-load-'));
    const entry = path.join(dir, 'entry.js');
    const marker = path.join(dir, 'loaded');
    // where it was loaded from: a preload has no main module yet; nothing may have read
    // AsyncLocalStorage before it, as in an app whose first line it is
    fs.writeFileSync(entry, 'require("fs").appendFileSync(' + JSON.stringify(marker) + ', (require.main ? ' +
      'require("path").basename(require.main.filename) : "preload") + " als:" + ' +
      'process.moduleLoadList.some((m) => /async_local_storage/.test(m)) + "\\n");\n' +
      'require(' + JSON.stringify(path.join(__dirname, '..', '..', 'index.js')) + ');\n');
    const out = execFileSync(process.execPath,
      [runJs, '--quick', '--only', '^basics/immediate-0$', '--no-chart', '--qtimers', entry, '--load', 'require'],
      { encoding: 'utf8', timeout: 60000, killSignal: 'SIGKILL' });
    t.ok(/\[1\/1\] basics\/immediate-0 .*x\d/.test(out), 'the row ran with a speedup:\n' + out);
    t.ok(out.includes('qtimers required on the main module\'s first line'), 'the run says where it loaded qtimers:\n' + out);
    // the install check preloads it; the measured run requires it from first-line.js
    t.deepEqual(fs.readFileSync(marker, 'utf8').trim().split('\n'), ['preload als:false', 'first-line.js als:false']);
    fs.rmSync(dir, { recursive: true, force: true });
    const { parseArgs } = require('../../benchmark/micro/options');
    t.equal(parseArgs([]).load, 'preload', 'preloaded by default');
    t.done();
  },

  // the README quotes both positions from committed files: each load position has its own table
  'bench alternates which build runs first by round, and --load require writes its own table beside the preload one': function(t) {
    const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'qtimers-bench-order-'));
    const log = path.join(dir, 'children');
    // a node that logs each child's arguments, in the order the runner starts them
    const node = path.join(dir, 'node');
    fs.writeFileSync(node, '#!/bin/sh\nprintf "%s\\n" "$*" >> ' + JSON.stringify(log) + '\nexec ' +
      JSON.stringify(process.execPath) + ' "$@"\n', { mode: 0o755 });
    const quickDir = path.join(resultsDir, 'quick');
    const readIn = (folder, name) => (fs.existsSync(path.join(folder, name)) ? fs.readFileSync(path.join(folder, name), 'utf8') : null);
    const read = (name) => readIn(quickDir, name);
    const readCommitted = () => ['table.md', 'chart.svg', 'table-require.md'].map((name) => readIn(resultsDir, name));
    const preloadTable = read('table.md');
    const committed = readCommitted();
    const out = execFileSync(process.execPath, [runJs, '--quick', '--rounds', '2', '--only', '^basics/immediate-0$',
      '--no-chart', '--load', 'require', '--node', node], { encoding: 'utf8', timeout: 60000, killSignal: 'SIGKILL' });
    const runs = fs.readFileSync(log, 'utf8').split('\n').filter((line) => /basics\.js immediate-0/.test(line))
      .map((line) => (line.includes('first-line.js') ? 'qtimers' : 'native'));
    t.deepEqual(runs, ['native', 'qtimers', 'qtimers', 'native'], 'round 1 native first, round 2 qtimers first:\n' + out);
    const written = read('table-require.md');
    t.ok(written && written.includes('qtimers required on the main module\'s first line'), 'quick/table-require.md:\n' + out);
    t.equal(read('table.md'), preloadTable, 'the preload table is left as it was');
    t.deepEqual(readCommitted(), committed, 'the committed results are untouched');
    fs.rmSync(dir, { recursive: true, force: true });
    t.done();
  },

  'bench --help gives --quick\'s time and says where its results go': function(t) {
    const help = execFileSync(process.execPath, [runJs, '--help'], { encoding: 'utf8' });
    const quick = help.slice(help.indexOf('--quick'), help.indexOf('--rounds'));
    t.ok(/about \d+ s\b/.test(quick), quick);
    t.ok(/indicative only/.test(quick) && /benchmark\/results\/quick\//.test(quick), quick);
    t.done();
  },

  // RESULTS.md copies results/floor*.md (test-readme-figures.js): the file must hold every row,
  // each mode's median and every ratio, the exact floor's to native among them
  'bench:floor\'s results file has a row per scenario with its medians and four ratios': function(t) {
    const { summarize, markdown } = require('../../benchmark/floor/run');
    const scenario = { label: 'a row', unit: 'ops/s', better: 'higher' };
    const row = summarize({ scenario, values: { native: [1e6, 2e6, 3e6], qtimers: [4e6], floor: [5e6], exact: [6e6] },
      ratios: [[1.5], [2, 3, 4], [0.5], [0.8, 0.9, 1.2]] });
    const text = markdown([row], { node: 'node v20.1.2 x64', cpu: 'CPU', cores: 2 }, { rounds: 3 });
    const lines = text.split('\n');
    t.ok(/^\*\*qtimers against the floors\*\*: node v20\.1\.2 x64, CPU \(2 cores\), 3 rounds, \d{4}-\d\d-\d\d, /.test(lines[0]), lines[0]);
    t.equal(lines[2], '| scenario | native | qtimers | floor | exact | q/native | exact/native | q/floor | q/exact | q/exact range |');
    t.equal(lines[4], '| a row (ops/s) | 2.00M | 4.00M | 5.00M | 6.00M | 1.50x | 3.00x | 0.50x | 0.90x | 0.80-1.20 |');
    t.done();
  },

  // benchmark/floor/phases.js splits a batch into making, waiting and running: each phase is a
  // median of the warm half, and a child's batch runs every callback it made
  'bench:floor\'s phases: medians of the warm half, a row per kind and phase, a child that runs its batches': function(t) {
    const phases = require('../../benchmark/floor/phases');
    t.deepEqual(phases.medianPhases({ create: [90, 80, 70, 1, 2, 3], wait: [50, 40, 30, 1, 5, 7], drain: [70, 60, 50, 2, 2, 4] }),
      { create: 2, wait: 5, drain: 2 });
    const one = { create: 40, wait: 1080, drain: 27.5 };
    const table = phases.rows({ timeout: { native: [one, one], qtimers: [one], exact: [one] } });
    const lines = phases.markdown(table, 34.5, { node: 'node v20.1.2 x64', cpu: 'CPU', cores: 2 }, { rounds: 2 }).split('\n');
    t.equal(lines[2], '| batch | phase | unit | native | qtimers | exact |');
    t.deepEqual(lines.slice(4, 7), ['| `setTimeout(fn, 1)` | create | ns/timer | 40.0 | 40.0 | 40.0 |',
      '| `setTimeout(fn, 1)` | wait | µs | 1080 | 1080 | 1080 |', '| `setTimeout(fn, 1)` | drain | ns/callback | 27.5 | 27.5 | 27.5 |']);
    t.ok(lines.some((line) => line.includes('read (native): 34.5 ns')), 'the clock read');
    const out = JSON.parse(execFileSync(process.execPath, [path.join(__dirname, '..', '..', 'benchmark', 'floor', 'phases.js'),
      '--child', 'timeout', '4'], { encoding: 'utf8', timeout: 30000 }));
    t.ok(out.create > 0 && out.wait > 0 && out.drain > 0, JSON.stringify(out));
    t.done();
  },

  // benchmark/floor/run.js measures a bare implementation as the lower bound of any library that
  // keeps Node's rule; a floor that broke the rule would make that bound a false one.
  'the floor drains ticks and microtasks between two callbacks, and makeFloor(false) does not': function(t) {
    const { makeFloor } = require('../../benchmark/floor/timers');
    const withRule = runFloor(makeFloor(true));
    const exact = runFloor(makeFloor(true, true));
    const without = runFloor(makeFloor(false));
    nativeSetTimeout(() => {
      for (const log of [withRule, exact]) {
        t.deepEqual(log.immediates, ['i1', 'i1-tick', 'i1-job', 'i2', 'i2-tick', 'i2-job']);
        t.deepEqual(log.timeouts, ['t1', 't1-tick', 't1-job', 't2', 't2-tick', 't2-job']);
      }
      t.deepEqual(without.immediates.slice(0, 2), ['i1', 'i2']);
      t.deepEqual(without.timeouts.slice(0, 2), ['t1', 't2']);
      t.done();
    }, 50);
  },

  // The floor's refresh() stands for the least work a refresh can do; one that left the timer
  // where it was would be cheaper than any correct implementation, and a false bound.
  'the floor\'s refresh() puts the timer behind those already pending': function(t) {
    const { makeFloor } = require('../../benchmark/floor/timers');
    const floor = makeFloor(true);
    const fired = [];
    const a = floor.setTimeout(() => fired.push('a'), 1);
    floor.setTimeout(() => fired.push('b'), 1);
    t.equal(a.refresh(), a);
    nativeSetTimeout(() => {
      t.deepEqual(fired, ['b', 'a']);
      t.done();
    }, 50);
  },

  // The floor's intervals row stands for the least an interval can cost: one that stopped
  // repeating, or could not be cleared, would measure something else.
  'the floor\'s interval repeats until clearInterval, its period counted from its callback\'s start': function(t) {
    const { makeFloor } = require('../../benchmark/floor/timers');
    const runs = [true, false].map((exact) => {
      const floor = makeFloor(true, exact);
      const run = { starts: [], calls: 0 };
      const timer = floor.setInterval(() => {
        run.calls += 1;
        run.starts.push(timer._idleStart);
        if (run.calls === 3) floor.clearTimeout(timer);
      }, 2);
      return run;
    });
    const once = makeFloor(true, true);
    let ran = 0;
    const cleared = once.setInterval(() => ran++, 1);
    once.clearTimeout(cleared);
    nativeSetTimeout(() => {
      for (const run of runs) {
        t.equal(run.calls, 3, 'ran three times, then cleared in its callback');
        // the start a callback sees is its period's: each later than the one before by >= 2 ms
        for (let i = 1; i < run.starts.length; i++) t.ok(run.starts[i] - run.starts[i - 1] >= 2, run.starts.join(', '));
      }
      t.equal(ran, 0, 'an interval cleared before its first period never runs');
      t.done();
    }, 60);
  },

  // The exact floor stands for a library that keeps the contract (a timer is stamped with the
  // time of the call that armed it); one that shared a reading would be a false bound.
  'the exact floor stamps each timer with the time of its own call, the other floor with one reading per section': function(t) {
    const { makeFloor } = require('../../benchmark/floor/timers');
    const stamps = [makeFloor(true, true), makeFloor(true, false)].map((floor) => {
      const a = floor.setTimeout(() => {}, 1);
      const until = process.hrtime.bigint() + 3000000n;
      while (process.hrtime.bigint() < until) ;     // 3 ms of one synchronous section
      const b = floor.setTimeout(() => {}, 1);
      return b._idleStart - a._idleStart;
    });
    t.ok(stamps[0] >= 2, 'exact: ' + stamps[0] + ' ms apart');
    t.equal(stamps[1], 0, 'shared: one reading');
    nativeSetTimeout(() => t.done(), 20);
  },
};

const nativeSetTimeout = require('timers').setTimeout;

function contents(file) {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
}

function runFloor(floor) {
  const log = { immediates: [], timeouts: [] };
  function step(list, id) {
    return function() {
      list.push(id);
      process.nextTick(() => list.push(id + '-tick'));
      Promise.resolve().then(() => list.push(id + '-job'));
    };
  }
  floor.setImmediate(step(log.immediates, 'i1'));
  floor.setImmediate(step(log.immediates, 'i2'));
  floor.setTimeout(step(log.timeouts, 't1'), 1);
  floor.setTimeout(step(log.timeouts, 't2'), 1);
  return log;
}
