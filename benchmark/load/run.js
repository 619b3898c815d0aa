#!/usr/bin/env node
/*
 * load/run: `npm run bench:load`, what loading qtimers adds to a process, in each position a
 * program loads it, against the same process without it: the process's start to its exit (an
 * empty program), `require('qtimers')` itself, and the process's first timer (the first
 * `setTimeout` call pays qtimers' first-call set-up, and its callback runs that much later).
 *
 * Owns the variants, the runs and the report.  Every variant is a fresh process of load/child.js
 * (spawned synchronously, timed from the spawn to its exit); the variants of one run go in turn,
 * the first one rotating from run to run, so that a slow spell of the machine falls on all of
 * them alike.  Figures are medians over runs with their quartiles; "added" is the difference of
 * the medians.  A full run writes benchmark/results/load.md (load-node24.md and so on with --node
 * another Node's); --quick writes nothing.
 * It must never run two measured processes at once.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const childProcess = require('child_process');
const { systemInfo, otherNode } = require('../micro/runner');

const ROOT = path.resolve(__dirname, '..', '..');
const CHILD = path.join(__dirname, 'child.js');
const RESULTS_DIR = path.join(ROOT, 'benchmark', 'results');
const RUNS = 21;
const QUICK_RUNS = 5;
const CHILD_TIMEOUT_MS = 30000;

// [name, node arguments before the child, the child's mode, whether qtimers must be in place]
const VARIANTS = [
  ['native', [], 'empty', false],
  ['preload', ['-r', ROOT], 'empty', true],
  ['first line', [], 'require', true],
  ['native first timer', [], 'first', false],
  ['preload first timer', ['-r', ROOT], 'first', true],
];

// the table: [label, the variant and figure of native's column, of qtimers' column]
const ROWS = [
  ['process start to exit, `node -r qtimers` (ms)', ['native', 'wallMs'], ['preload', 'wallMs']],
  ['process start to exit, `require(\'qtimers\')` on the first line (ms)', ['native', 'wallMs'], ['first line', 'wallMs']],
  ['`require(\'qtimers\')` itself (ms)', null, ['first line', 'requireMs']],
  ['the first `setTimeout` call (ms)', ['native first timer', 'callMs'], ['preload first timer', 'callMs']],
  ['the first 5 ms timeout runs after its call (ms)', ['native first timer', 'firedAfterMs'], ['preload first timer', 'firedAfterMs']],
];

if (require.main === module) main(process.argv.slice(2));

function usage() {
  return 'usage: npm run bench:load -- [--quick] [--runs N] [--node PATH]\n\n' +
    'Times fresh processes natively and with qtimers (preloaded, and required on the first line):\n' +
    'start to exit of an empty program, require(\'qtimers\') itself, and the first setTimeout (the\n' +
    'call and when its 5 ms callback runs).  Medians over runs with quartiles.  A full run (' + RUNS + '\n' +
    'runs, about a minute) writes benchmark/results/load.md (load-node24.md and so on with --node\n' +
    'another Node\'s); --quick (' + QUICK_RUNS + ' runs) writes nothing.';
}

function main(argv) {
  const opts = { runs: RUNS, node: process.execPath, quick: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--quick') { opts.quick = true; opts.runs = QUICK_RUNS; }
    else if (argv[i] === '--runs') opts.runs = Number(argv[++i]);
    else if (argv[i] === '--node') opts.node = argv[++i];
    else if (argv[i] === '--help') { console.log(usage()); return; }
    else { console.error(argv[i] + ': unknown option\n' + usage()); process.exit(2); }
  }
  if (!(opts.runs >= 1)) { console.error('--runs must be a positive number\n' + usage()); process.exit(2); }
  const info = Object.assign(systemInfo(opts), { runs: opts.runs, quick: opts.quick });
  const samples = measure(opts);
  const text = report(samples, info);
  console.log(text);
  if (!opts.quick) {
    const file = resultFile(opts.node, info.node);
    fs.writeFileSync(file, text + '\n');
    console.log('written to ' + path.relative(process.cwd(), file));
  }
}

/* the results file of a run of the Node at `nodePath` (`version`): load.md, load-node<major>.md for another */
function resultFile(nodePath, version) {
  return path.join(RESULTS_DIR, 'load' + otherNode(nodePath, version) + '.md');
}

/* every variant, opts.runs times: { variant name: { figure: [values] } } */
function measure(opts) {
  const samples = {};
  for (const [name] of VARIANTS) samples[name] = {};
  for (let run = 0; run < opts.runs; run++) {
    for (let k = 0; k < VARIANTS.length; k++) {
      const [name, nodeArgs, mode, withQtimers] = VARIANTS[(run + k) % VARIANTS.length];
      const figures = runChild(opts.node, nodeArgs, mode, name);
      if (figures.qtimers !== withQtimers) {
        throw new Error(name + ': qtimers was ' + (figures.qtimers ? '' : 'not ') + 'in place in the child');
      }
      delete figures.qtimers;
      for (const key of Object.keys(figures)) (samples[name][key] = samples[name][key] || []).push(figures[key]);
    }
  }
  return samples;
}

/* one fresh process: its figures and its wall time from spawn to exit */
function runChild(node, nodeArgs, mode, name) {
  const started = process.hrtime.bigint();
  const child = childProcess.spawnSync(node, nodeArgs.concat([CHILD, mode]),
    { encoding: 'utf8', timeout: CHILD_TIMEOUT_MS, env: withoutNodeOptions(process.env) });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const line = child.stdout && child.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (child.status !== 0 || !line) {
    throw new Error(name + ': the child failed (' + (child.error || 'exit ' + child.status) + '): ' + (child.stderr || '').trim());
  }
  return Object.assign({ wallMs }, JSON.parse(line.slice('RESULT '.length)));
}

// a NODE_OPTIONS preload (an APM agent, a test runner's) would be timed in every variant alike
function withoutNodeOptions(env) {
  const copy = Object.assign({}, env);
  delete copy.NODE_OPTIONS;
  return copy;
}

function quantile(values, q) {
  const sorted = values.slice().sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.min(low + 1, sorted.length - 1)] - sorted[low]) * (at - low);
}

function cell(values) {
  if (!values) return '';
  return quantile(values, 0.5).toFixed(2) + ' (' + quantile(values, 0.25).toFixed(2) + '-' + quantile(values, 0.75).toFixed(2) + ')';
}

/* the markdown table, with the machine (micro/runner.js's systemInfo()) and what was measured */
function report(samples, info) {
  const lines = [
    '**What loading qtimers adds to a process**: ' + info.node + ', ' +
      info.cpu + ' (' + info.cores + ' cores), ' + info.runs + ' runs, ' +
      new Date().toISOString().slice(0, 10) + (info.quick ? ' (--quick: indicative only)' : ''),
    '',
    '| figure | native | qtimers | added |',
    '|---|--:|--:|--:|',
  ];
  for (const [label, nativeSide, qtimersSide] of ROWS) {
    const nativeValues = nativeSide && samples[nativeSide[0]][nativeSide[1]];
    const qtimersValues = samples[qtimersSide[0]][qtimersSide[1]];
    const diff = nativeValues ? quantile(qtimersValues, 0.5) - quantile(nativeValues, 0.5) : null;
    const added = diff === null ? '' : (diff >= 0 ? '+' : '') + diff.toFixed(2);
    lines.push('| ' + label + ' | ' + cell(nativeValues) + ' | ' + cell(qtimersValues) + ' | ' + added + ' |');
  }
  lines.push('', 'Fresh processes of benchmark/load/child.js, the variants of a run in turn (the first rotating), ' +
    'one at a time; medians over runs, quartiles in parentheses; "added" is the difference of the medians.  ' +
    'Start to exit is timed by the parent from the spawn to the exit of an empty program; the other figures ' +
    'inside the child with process.hrtime.bigint().');
  return lines.join('\n');
}

module.exports = { VARIANTS, ROWS, report, quantile, resultFile };
