/**
 * Where a batch's time goes: bench:floor's two batch rows split into their phases.
 *
 * A batch row times one whole batch: make 10k timers, then wait for the last callback.  This
 * splits it, natively, with qtimers and with the exact floor (benchmark/floor/timers.js), all
 * three preloaded as in bench:floor:
 *   create  ns per timer, the loop that makes 10k setTimeout(fn, 1) or setImmediate(fn)
 *   wait    µs from that loop's end to the first callback: for 1 ms timeouts, libuv's poll,
 *           which waits whole milliseconds whoever made the timers
 *   drain   ns per callback, from the first callback to the last
 * A process makes BATCHES batches back to back (the next from the last callback, as `npm run
 * bench`'s harness does) and reports the medians of the second half (the code is warm by then).
 * Beside them, what one clock read costs (`process.hrtime()`, as qtimers and the exact floor
 * read it per arming), in a native process: READS reads, a median of READ_ROUNDS.
 * The modes run in fresh processes, one at a time, the order reversed every other round; the
 * table gives medians over rounds.  A run writes benchmark/results/phases.md (phases-node24.md
 * with --node of another Node), which RESULTS.md copies.
 *
 *     node benchmark/floor/phases.js [--rounds N] [--node PATH]
 */

'use strict';

const childProcess = require('child_process');
const fs = require('fs');
const path = require('path');
const runner = require('../micro/runner');
const report = require('../micro/report');
const statistics = require('../shared/statistics');

const BATCH = 10000;
const BATCHES = 400;              // per process: about a second of timeouts on this machine
const READS = 1e6;
const READ_ROUNDS = 7;
const CHILD_TIMEOUT_MS = 60000;   // the watchdog of one child (a hung one is killed, the run fails)
const PRELOADS = {
  native: [],
  qtimers: ['-r', runner.QTIMERS],
  exact: ['-r', runner.EXACT_FLOOR],
};
const MODES = Object.keys(PRELOADS);
const KINDS = ['timeout', 'immediate'];
const PHASES = [['create', 'ns/timer'], ['wait', 'µs'], ['drain', 'ns/callback']];
const RESULTS_DIR = path.join(runner.ROOT, 'benchmark', 'results');

module.exports = { measure, clockRead, medianPhases, rows, markdown };

if (require.main === module) {
  if (process.argv[2] === '--child' && process.argv[3] === 'clock') console.log(JSON.stringify({ read: clockRead() }));
  else if (process.argv[2] === '--child') measure(process.argv[3], Number(process.argv[4]) || BATCHES,
    (phases) => console.log(JSON.stringify(phases)));
  else main(process.argv.slice(2));
}

// ---------------------------------------------------------------- the child

/* run `batches` batches of `kind` with the global timers; done({ create, wait, drain }) */
function measure(kind, batches, done) {
  const arm = kind === 'timeout' ? (fn) => setTimeout(fn, 1) : (fn) => setImmediate(fn);
  const samples = { create: [], wait: [], drain: [] };
  let left = 0, made = 0, t0 = 0n, t1 = 0n, tFirst = 0n;
  function fired() {
    if (left-- === BATCH) tFirst = process.hrtime.bigint();
    if (left === 0) ended();
  }
  function batch() {
    left = BATCH;
    t0 = process.hrtime.bigint();
    for (let i = 0; i < BATCH; i++) arm(fired);
    t1 = process.hrtime.bigint();
  }
  function ended() {
    const t2 = process.hrtime.bigint();
    samples.create.push(Number(t1 - t0) / BATCH);
    samples.wait.push(Number(tFirst - t1) / 1e3);
    samples.drain.push(Number(t2 - tFirst) / (BATCH - 1));
    if (++made < batches) batch();
    else done(medianPhases(samples));
  }
  batch();
}

/* each phase's median over the second half of its samples */
function medianPhases(samples) {
  const out = {};
  for (const [phase] of PHASES) {
    const list = samples[phase];
    out[phase] = statistics.median(list.slice(list.length >> 1));
  }
  return out;
}

/* ns per process.hrtime() read, the median of READ_ROUNDS loops of READS (the sum is used, so
   no read is dropped as dead code) */
function clockRead() {
  const hrtime = process.hrtime;
  const perRound = [];
  let sum = 0;
  for (let r = 0; r < READ_ROUNDS; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < READS; i++) sum += hrtime()[1];
    perRound.push(Number(process.hrtime.bigint() - t0) / READS);
  }
  if (sum === -1) console.log(sum);
  return statistics.median(perRound);
}

// ---------------------------------------------------------------- rounds and table

function main(argv) {
  const opts = { rounds: 5, node: process.execPath };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--rounds') opts.rounds = Number(argv[++i]);
    else if (argv[i] === '--node') opts.node = argv[++i];
    else { console.error(argv[i] + ': unknown option\nusage: node benchmark/floor/phases.js [--rounds N] [--node PATH]'); process.exit(2); }
  }
  if (!(opts.rounds >= 1)) { console.error('--rounds must be a positive number'); process.exit(2); }
  const info = runner.systemInfo(opts);
  const runs = {};   // runs[kind][mode]: one { create, wait, drain } per round
  for (const kind of KINDS) {
    runs[kind] = {};
    for (const mode of MODES) runs[kind][mode] = [];
  }
  const reads = [];
  const reversed = MODES.slice().reverse();
  for (let round = 1; round <= opts.rounds; round++) {
    for (const kind of KINDS) {
      for (const mode of round % 2 === 1 ? MODES : reversed) runs[kind][mode].push(runChild(opts.node, mode, kind));
    }
    reads.push(runChild(opts.node, 'native', 'clock').read);
    console.log('  round %d of %d done', round, opts.rounds);
  }
  const table = rows(runs);
  const text = markdown(table, statistics.median(reads), info, opts);
  console.log('\n' + text);
  const file = 'phases' + runner.otherNode(opts.node, info.node) + '.md';
  fs.writeFileSync(path.join(RESULTS_DIR, file), text);
  console.log('wrote %s', path.join('benchmark', 'results', file));
}

function runChild(node, mode, kind) {
  const child = childProcess.spawnSync(node, PRELOADS[mode].concat([__filename, '--child', kind]), {
    encoding: 'utf8', timeout: CHILD_TIMEOUT_MS, killSignal: 'SIGKILL',
  });
  if (child.status !== 0) throw new Error(mode + ' ' + kind + ': ' + (child.error || child.stderr || 'killed by ' + child.signal));
  return JSON.parse(child.stdout.trim().split('\n').pop());
}

/* one row per kind and phase: each mode's median over rounds */
function rows(runs) {
  const out = [];
  for (const kind of Object.keys(runs)) {
    for (const [phase, unit] of PHASES) {
      const m = {};
      for (const mode of MODES) m[mode] = statistics.median(runs[kind][mode].map((r) => r[phase]));
      out.push({ kind, phase, unit, values: m });
    }
  }
  return out;
}

function markdown(table, read, info, opts) {
  const date = new Date().toISOString().slice(0, 10);
  const fixed = (v) => v.toFixed(v < 100 ? 1 : 0);
  const lines = [
    '**Where a batch of 10k goes**: ' + report.describeRun(info, opts) + ', ' + date +
      ', native, qtimers and the exact floor preloaded (`-r`)',
    '',
    '| batch | phase | unit | ' + MODES.join(' | ') + ' |',
    '|---|---|---|' + MODES.map(() => '--:|').join(''),
  ];
  for (const row of table) {
    lines.push('| ' + [row.kind === 'timeout' ? '`setTimeout(fn, 1)`' : '`setImmediate(fn)`', row.phase, row.unit]
      .concat(MODES.map((mode) => fixed(row.values[mode]))).join(' | ') + ' |');
  }
  lines.push('', 'create: the loop that makes the batch, per timer; wait: from its end to the first callback; ' +
    'drain: from the first callback to the last, per callback.  Medians over rounds of each process\'s ' +
    'medians over its warm batches.  One `process.hrtime()` read (native): ' + read.toFixed(1) + ' ns.', '');
  return lines.join('\n');
}
