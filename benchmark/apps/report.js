/*
 * apps/report: what `npm run bench:apps` prints and writes: the progress lines, the table, the
 * markdown of benchmark/results/apps.md with each workload's definition and the footnotes
 * (shared/chart.js draws the SVG).
 *
 * Owns the wording and layout of the results.  Lower-is-better figures carry the footnote's
 * asterisk; workloads measured in several pairs of shorter runs a round are named in a note.
 * It must never run or measure anything.
 */
'use strict';

const chart = require('../shared/chart');
const profile = require('./profile');
const { load, pairsPerRound } = require('./child');

/* the progress line of one pair of runs (runner.js's measurePair) */
function measuredLine(result, label, { outcome, switches }) {
  const first = result.workload.metrics[0];
  let line = '  ' + label + ' ' + result.name.padEnd(16) + first.label.padEnd(28);
  for (const mode of ['native', 'qtimers']) {
    line += ' ' + mode + ' ' + (outcome[mode] ? chart.formatFigure(outcome[mode][first.key]) : '-').padEnd(8);
  }
  if (outcome.native && outcome.qtimers) {
    line += ' x' + result.ratios[first.key][result.ratios[first.key].length - 1].toFixed(2);
    line += '   context switches/s native ' + chart.formatFigure(switches.native) + ' qtimers ' + chart.formatFigure(switches.qtimers);
  }
  return line;
}

/* the progress line of one profiled native run (runner.js's profileShare) */
function profiledLine(result, share) {
  return '  [profile] ' + result.name.padEnd(16) + 'Node\'s timers: ' + chart.formatShare(result.share) + ' of native CPU' +
    (share.error ? ' (' + share.error + ')' : ' (' + share.busySamples + ' samples)');
}

function formatRatio(row) {
  return chart.formatRatio(row.ratio, row.ratioMin, row.ratioMax);
}

function describeRun(env, opts) {
  return 'node ' + env.version + ' ' + env.arch + ', ' + env.cpu + ' (' + env.cores + ' cores), ' +
    opts.rounds + ' round' + (opts.rounds > 1 ? 's' : '') + (opts.quick ? ', --quick' : '') +
    (opts.alone ? ', one process at a time' : ', side by side');
}

const FOOTNOTES = [
  'Each figure is the median over rounds; the advantage is the median of the per-round ratios qtimers / native ' +
    '(native / qtimers where lower is better, marked \\*), range over rounds in parentheses: > 1 means qtimers is better.  ' +
    'In each round the two builds run side by side, two processes at once, each on a core, so that both meet the same ' +
    'moments of a shared machine; HTTP runs one process at a time (its load generator takes the other core), native and ' +
    'qtimers alternating.',
  'Rates "per CPU-second" are units of work per second of the process\'s CPU time (user + system) in the measured window: ' +
    'what the workload does per wall second on a core of its own, and less disturbed than a wall-clock rate by a busy ' +
    'neighbour on a shared machine.  HTTP requests/s and p99 are autocannon\'s (wall clock), from a load generator that ' +
    'shares the machine; p99 is that of the response times autocannon reports for each response, in fractions of a ' +
    'millisecond.',
  'Node\'s timers (% of native CPU): of the V8 CPU profile samples of one native run (`--cpu-prof`, V8 inlining off for ' +
    'that run so that an inlined callback is not billed to the loop that calls it; a sample every ' +
    profile.SAMPLING_INTERVAL_US + ' µs, since V8\'s default of one a millisecond falls in step with work woken by a 1 ms ' +
    'timer and catches it asleep) taken inside the measured window and not ' +
    'labelled idle, the share whose running function is Node-internal or native code reached, with no application or ' +
    'library function in between, from a function of node:timers, node:timers/promises or node:internal/timers: the timer ' +
    'calls and their bookkeeping, and the loop that runs due timers and drains ticks and microtasks between their callbacks, ' +
    'not the callbacks.  Not counted: garbage collection, and what the profiler labels idle, which includes the event loop\'s ' +
    'own turn (polling) outside JavaScript.',
];

function markdownTable(rows, env, opts, seconds) {
  const lines = [
    '**Application workloads, native vs qtimers**: ' + describeRun(env, opts) + ', ' +
      new Date().toISOString().slice(0, 10) + ', ' + Math.round(seconds) + ' s',
    '',
  ];
  if (opts.quick) lines.push('`--quick`: one short round; indicative figures only.', '');
  lines.push('| workload | figure | native | qtimers | qtimers advantage | Node\'s timers, % of native CPU |',
    '|---|---|--:|--:|--:|--:|');
  for (const workload of rows) {
    workload.rows.forEach((row, i) => {
      lines.push('| ' + [i === 0 ? workload.title : '',
        row.label + ' (' + row.unit + ')' + (row.better === 'lower' ? ' \\*' : ''),
        chart.formatFigure(row.native), chart.formatFigure(row.qtimers), formatRatio(row),
        i === 0 ? chart.formatShare(workload.share) : ''].join(' | ') + ' |');
    });
  }
  lines.push('');
  for (const workload of rows) lines.push('- **' + workload.title + '**: ' + workload.describe + '.');
  lines.push('');
  for (const note of FOOTNOTES) lines.push(note, '');
  const pairsOf = (workload) => pairsPerRound(load(workload.name), opts.size);
  const several = rows.filter((workload) => pairsOf(workload) > 1);
  if (several.length) {
    const titles = several.map((workload) => workload.title + ' (' + pairsOf(workload) + ' pairs a round, ' +
      pairsOf(workload) * opts.rounds + ' in all)');
    lines.push('Pairs of shorter runs, each counted as a round above: ' + titles.join(', ') + '.  One process of such a ' +
      'workload is a lottery of V8\'s optimizing compiler, whichever timers it has, so a median needs many ' +
      '(the workload\'s file gives the figures).', '');
  }
  return lines.join('\n');
}

function printTable(rows, env, opts, log) {
  log('\n' + describeRun(env, opts) + '\n');
  const format = (cells) => cells[0].padEnd(24) + cells[1].padEnd(38) + cells[2].padStart(9) + cells[3].padStart(9) +
    '  ' + cells[4].padEnd(20) + cells[5].padStart(7);
  log(format(['workload', 'figure', 'native', 'qtimers', 'qtimers advantage', 'timers']));
  for (const workload of rows) {
    workload.rows.forEach((row, i) => {
      log(format([i === 0 ? workload.name : '', row.label + ' (' + row.unit + ')' + (row.better === 'lower' ? ' *' : ''),
        chart.formatFigure(row.native), chart.formatFigure(row.qtimers), formatRatio(row),
        i === 0 ? chart.formatShare(workload.share) : '']));
    });
  }
  log('\n* lower is better (the advantage is native / qtimers).  timers: the share of the native run\'s CPU profile ' +
    'that Node\'s timers take (the README and benchmark/results/apps.md define it).');
}

module.exports = { measuredLine, profiledLine, describeRun, markdownTable, printTable };
