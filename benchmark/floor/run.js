/**
 * The floors: how fast can any JavaScript timers library be while it keeps Node's rule that the
 * nextTick and microtask queues are drained between two callbacks?
 *
 * Runs nine rows of the main table (micro/runner.js and shared/statistics.js: the same scenario files,
 * children and ratio arithmetic) natively, with qtimers, and with two bare implementations
 * (benchmark/floor/timers.js, preloaded as qtimers is by index.js) that keep only what no drop-in
 * library can drop: a new handle object per call, the callback check, first-in first-out order,
 * one native driver timer, process._tickCallback between callbacks, for refresh() an unlink
 * and a re-append that keep the list in expiry order, and for an interval a re-append after its
 * callback with the period counted from the callback's start.
 *   floor  stamps the timers of one synchronous section or drain with one shared clock reading
 *   exact  stamps each timer with a clock read of its own call, as qtimers' contract requires
 *          (lib/clock.js), and each interval's next period with a read at its callback's start
 *          (as Node's getLibuvNow() and qtimers do), so it is the floor of any library that keeps
 *          that contract
 * They have no unref, no arguments, no async context, no error safety, no second delay: they are
 * not timers libraries, they are the lower bound on the cost of one.
 *
 *     node benchmark/floor/run.js [--rounds N] [--node PATH] [--only REGEX]
 *
 * The four modes run one at a time within each round, in an order that is reversed every other
 * round (so that none always runs first); medians over rounds are printed with qtimers' ratio to
 * native and its share of each floor (qtimers' rate / the floor's, per round), and the range
 * over rounds of its share of the exact floor.  A full run writes the table to
 * benchmark/results/floor.md (floor-node24.md with --node of another Node), which RESULTS.md
 * shows; an --only run writes nothing.
 */

'use strict';

const fs = require('fs');
const path = require('path');
const runner = require('../micro/runner');
const report = require('../micro/report');
const statistics = require('../shared/statistics');
const chart = require('../shared/chart');

// the main table's rows measured against the floors (ids of benchmark/micro/scenarios/*)
const ROWS = /^(primitives\/immediate-batch-0|primitives\/timeout-batch-0|cpu\/loops-(1|10|100|1000)|server\/refresh-10k|server\/refresh-100k|timeouts\/interval-1ms)$/;
const MODES = ['native', 'qtimers', 'floor', 'exact'];
const RESULTS_DIR = path.join(runner.ROOT, 'benchmark', 'results');
// how to read the table, printed under it and written under it in the results file
const READING = 'floor: one clock reading shared per section; exact: a clock read per arming, as qtimers must.\n' +
  'setImmediate reads no clock, so its row runs the same code in both floors: their difference there\n' +
  'is the run\'s noise.  A ratio > 1 means qtimers does better (CPU rows: the other\'s CPU per\n' +
  'callback / qtimers\').';
// the ratios printed: [heading, mode, the mode it is measured against] (exact/native: how near
// native any library that keeps the contract can come on that row)
const RATIOS = [['q/native', 'qtimers', 'native'], ['exact/native', 'exact', 'native'], ['q/floor', 'qtimers', 'floor'],
  ['q/exact', 'qtimers', 'exact']];

if (require.main === module) main(process.argv.slice(2));
module.exports = { summarize, markdown };

// ---------------------------------------------------------------- rounds and table

function main(argv) {
  const opts = { rounds: 3, node: process.execPath, quick: false, als: false, depth: undefined };
  let only = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--rounds') opts.rounds = Number(argv[++i]);
    else if (argv[i] === '--node') opts.node = argv[++i];
    else if (argv[i] === '--only') only = new RegExp(argv[++i]);
    else if (argv[i] === '--help') { console.log(usage()); return; }
    else { console.error(argv[i] + ': unknown option\n' + usage()); process.exit(2); }
  }
  if (!(opts.rounds >= 1)) { console.error('--rounds must be a positive number'); process.exit(2); }
  const scenarios = runner.loadScenarios(ROWS).filter((s) => only === null || only.test(s.id) || only.test(s.label));
  if (scenarios.length === 0) { console.error('--only ' + only.source + ': no row of the floor\'s matches'); process.exit(2); }
  const info = runner.systemInfo(opts);
  console.log('%s, %d rounds; values are medians, ratios medians of the per-round ratios',
    info.node, opts.rounds);
  const results = scenarios.map((scenario) => ({ scenario, values: {}, ratios: RATIOS.map(() => []) }));
  for (const result of results) for (const mode of MODES) result.values[mode] = [];
  const reversed = MODES.slice().reverse();
  for (let round = 1; round <= opts.rounds; round++) {
    for (const result of results) {
      const values = {}, rates = {};
      for (const mode of round % 2 === 1 ? MODES : reversed) {
        const outcome = runner.runChild(result.scenario, mode, opts);
        if (outcome.error) throw new Error(result.scenario.id + ' ' + mode + ' round ' + round + ': ' + outcome.error);
        values[mode] = outcome.value;
        rates[mode] = outcome.callbackRate;
        result.values[mode].push(outcome.value);
      }
      RATIOS.forEach(([, mode, base], k) => {
        // the main table's ratio (CPU rows per callback), `base` in native's place and `mode` in qtimers'
        result.ratios[k].push(statistics.advantage(result.scenario, values[base], values[mode],
          { native: rates[base], qtimers: rates[mode] }));
      });
    }
    console.log('  round %d of %d done', round, opts.rounds);
  }
  const rows = results.map(summarize);
  console.log('\n%s  %s  %s  %s', pad('scenario', 52), MODES.map((mode) => pad(mode, 10)).join('  '),
    RATIOS.map(([heading]) => pad(heading, 12)).join('  '), 'q/exact range');
  for (const row of rows) {
    console.log('%s  %s  %s  %s', pad(row.label, 52), row.values.map((v) => pad(v, 10)).join('  '),
      row.ratios.map((r) => pad(r, 12)).join('  '), row.range);
  }
  console.log('\n' + READING);
  // the file RESULTS.md shows: only a full run of every row replaces it
  if (only !== null) {
    console.log('--only: results/ left as it was');
    return;
  }
  const file = 'floor' + runner.otherNode(opts.node, info.node) + '.md';
  fs.writeFileSync(path.join(RESULTS_DIR, file), markdown(rows, info, opts));
  console.log('wrote %s', path.join('benchmark', 'results', file));
}

/* a row's medians and ratios, formatted */
function summarize(result) {
  const s = result.scenario;
  const exact = result.ratios[RATIOS.length - 1];
  return {
    label: s.label + ' (' + s.unit + ')',
    values: MODES.map((mode) => chart.formatValue(statistics.median(result.values[mode]), s.unit)),
    ratios: result.ratios.map((list) => statistics.median(list).toFixed(2) + 'x'),
    range: Math.min.apply(null, exact).toFixed(2) + '-' + Math.max.apply(null, exact).toFixed(2),
  };
}

/* results/floor.md (floor-node24.md for another Node): the table, its machine and its reading */
function markdown(rows, info, opts) {
  const date = new Date().toISOString().slice(0, 10);
  const lines = [
    '**qtimers against the floors**: ' + report.describeRun(info, opts) + ', ' + date + ', qtimers and the floors preloaded (`-r`)',
    '',
    '| scenario | ' + MODES.join(' | ') + ' | ' + RATIOS.map(([heading]) => heading).join(' | ') + ' | q/exact range |',
    '|---|' + MODES.map(() => '--:|').join('') + RATIOS.map(() => '--:|').join('') + '--:|',
  ];
  for (const row of rows) {
    lines.push('| ' + [row.label.replace(/\*/g, '\\*')].concat(row.values, row.ratios, [row.range]).join(' | ') + ' |');
  }
  lines.push('', READING.replace(/\n/g, ' '), '');
  return lines.join('\n');
}

function pad(s, n) {
  s = String(s);
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function usage() {
  return 'usage: node benchmark/floor/run.js [--rounds N] [--node PATH] [--only REGEX]\n\n' +
    'Runs the 10k-batch, loops, refresh() and 1 ms intervals rows of the main table natively, with\n' +
    'qtimers and with two bare implementations that keep only Node\'s tick drain between\n' +
    'callbacks and a list kept in expiry order (the floors: "floor" shares one clock reading\n' +
    'per section, "exact" reads the clock per arming as qtimers must), in fresh processes, and\n' +
    'prints medians, qtimers\' ratio to native and its share of each floor.  --only: the rows\n' +
    'whose id or label matches.';
}
