/*
 * report: what a benchmark run prints and writes: the progress lines, the table, its notes,
 * the markdown table of benchmark/results/table.md (shared/chart.js draws the SVG).
 *
 * Owns the wording and layout of the results.  Lower-is-better rows carry the footnote's
 * asterisk; the notes say how the speedup is computed and flag rows where the two modes ran
 * different numbers of callbacks, where a CPU % comparison would mislead.
 * It must never run or measure anything.
 */
'use strict';

const qprintf = require('qprintf');
const chart = require('../shared/chart');
const { median } = require('../shared/statistics');

const QUICK_CAVEAT = '--quick: one short round of each scenario on this machine, so these numbers are indicative only ' +
  '(a row can move by 2x from one run to the next on a shared machine); `npm run bench` measures several full rounds.';

function printProgress(round, rounds, scenario, values, ratio) {
  const show = (mode) => (values[mode] === undefined ? '-' : chart.formatValue(values[mode], scenario.unit));
  console.log(qprintf.sprintf('  [%d/%d] %-28s native %-9s qtimers %-9s %s',
    round, rounds, scenario.id, show('native'), show('qtimers'), ratio === undefined ? '' : 'x' + ratio.toFixed(2)));
}

function formatCell(value, unit) {
  return value === undefined ? 'n/a' : chart.formatValue(value, unit);
}

function formatSpeedup(row) {
  return chart.formatRatio(row.speedup, row.speedupMin, row.speedupMax);
}

// lower-is-better rows are marked with the footnote's asterisk (escaped for markdown)
function rowLabel(row, marker) {
  return row.scenario.label + (row.scenario.better === 'lower' ? ' ' + (marker || '*') : '');
}

// scaling should be flat: compare the rate at the most pending timers to the rate at the fewest
function scalingNote(rows) {
  const scaling = rows.filter((row) => row.scenario.group === 'Scaling');
  if (scaling.length < 2) return null;
  const first = scaling[0];
  const last = scaling[scaling.length - 1];
  const flatness = (mode) => (first[mode] && last[mode] ? (last[mode] / first[mode]).toFixed(2) : 'n/a');
  return 'Scaling: rate in the last Scaling row / rate in the first (most / fewest timers pending): native ' +
    flatness('native') + ', qtimers ' + flatness('qtimers') + ' (1.00 = flat).';
}

function nsPerCallback(cpuPercent, callbacksPerSecond) {
  return (cpuPercent / 100 / callbacksPerSecond * 1e9).toFixed(0) + ' ns';
}

function notes(rows, opts) {
  const list = [
    'speedup = qtimers / native, median of the per-round ratios (range over rounds in parentheses); > 1 means qtimers is better.',
    '* lower is better (CPU %, bytes): there speedup = native / qtimers, so > 1 still means qtimers is better.',
  ];
  if (rows.some((row) => row.scenario.unit === 'CPU %')) {
    list.push('CPU % rows: speedup = native CPU per callback / qtimers CPU per callback (CPU % / callbacks per second), ' +
      'which is the CPU % ratio while both keep up with their loops; where one falls behind (fewer callbacks, or a saturated core) ' +
      'the NOTE lines give both rates. Both modes are measured after a warm-up and without V8\'s memory reducer (benchmark/micro/scenarios/cpu.js says why).');
  }
  const timed = rows.filter((row) => row.seconds);
  if (timed.length) {
    list.push('Fixed-window rows (Cpu, setInterval) are measured over ' + median(timed.map((row) => row.seconds)).toFixed(1) +
      ' s of wall time each; calls/cpu-s rates are per second of process CPU (user + system).');
  }
  for (const row of rows) {
    // CPU % only compares like with like if both modes ran about as many callbacks
    const rates = row.callbackRate;
    if (rates.native && rates.qtimers && Math.abs(rates.qtimers / rates.native - 1) > 0.1) {
      let note = 'NOTE: ' + row.scenario.label + ': native ran ' + chart.formatValue(rates.native) +
        ' callbacks/s, qtimers ' + chart.formatValue(rates.qtimers);
      if (row.scenario.unit === 'CPU %') {
        note += '; CPU per callback: native ' + nsPerCallback(row.native, rates.native) +
          ', qtimers ' + nsPerCallback(row.qtimers, rates.qtimers);
      }
      list.push(note + '.');
    }
  }
  const scaling = scalingNote(rows);
  if (scaling) list.push(scaling);
  // last, where a reader of the table looks after the rows
  if (opts.quick) list.push(QUICK_CAVEAT);
  return list;
}

function describeRun(info, opts) {
  return info.node + ', ' + describeMachine(info, opts);
}

function describeMachine(info, opts) {
  return info.cpu + ' (' + info.cores + ' cores), ' + opts.rounds + ' round' +
    (opts.rounds > 1 ? 's' : '') + (opts.quick ? ', --quick' : '') + (opts.als ? ', --als' : '') +
    (opts.depth !== undefined ? ', maxTickDepth ' + opts.depth : '') +
    (opts.load === 'require' ? ', qtimers required on the main module\'s first line' : '') +
    (opts.qtimers ? ', qtimers from ' + opts.qtimers : '');
}

function printTable(rows, info, opts) {
  console.log('\n' + describeRun(info, opts) + '\n');
  const format = '%-62s %-12s %10s %10s  %s';
  console.log(qprintf.sprintf(format, 'scenario', 'unit', 'native', 'qtimers', 'speedup'));
  let group;
  for (const row of rows) {
    if (row.scenario.group !== group) console.log((group = row.scenario.group) + ':');
    console.log(qprintf.sprintf(format, '  ' + rowLabel(row), row.scenario.unit,
      formatCell(row.native, row.scenario.unit), formatCell(row.qtimers, row.scenario.unit), formatSpeedup(row)));
  }
  console.log('');
  for (const note of notes(rows, opts)) console.log(note);
}

function markdownTable(rows, info, opts) {
  const lines = [
    '**qtimers vs native timers**: ' + describeRun(info, opts) + ', ' + new Date().toISOString().slice(0, 10),
    '',
    '| group | scenario | unit | native | qtimers | speedup |',
    '|---|---|---|--:|--:|--:|',
  ];
  for (const row of rows) {
    lines.push('| ' + [row.scenario.group, rowLabel(row, '\\*'), row.scenario.unit, formatCell(row.native, row.scenario.unit),
      formatCell(row.qtimers, row.scenario.unit), formatSpeedup(row)].join(' | ') + ' |');
  }
  lines.push('');
  for (const note of notes(rows, opts)) lines.push(note.replace(/^\*/, '\\*') + '  ');
  return lines.join('\n') + '\n';
}

module.exports = { QUICK_CAVEAT, printProgress, printTable, markdownTable, describeRun, describeMachine };
