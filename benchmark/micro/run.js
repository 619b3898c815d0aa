#!/usr/bin/env node
/*
 * qtimers benchmark (`npm run bench`, `npm run bench -- --help`): native timers vs qtimers.
 *
 * Runs every scenario of benchmark/micro/scenarios/*.js in a fresh child process, once with the
 * native timers and once with qtimers preloaded (or, with --load require, required on the main
 * module's first line), alternating, for several rounds (runner.js);
 * the per-round qtimers/native ratio is what gets summarized, as the median over rounds
 * (shared/statistics.js).  Prints one table (report.js), and writes it to benchmark/results/table.md
 * together with an SVG bar chart in benchmark/results/chart.svg (shared/chart.js) for the README;
 * with --load require to benchmark/results/table-require.md instead, and no chart.
 * Those two files are only ever replaced by a full run of every scenario: --quick (one short
 * round, whose numbers are indicative only) writes its own to benchmark/results/quick/, which
 * git ignores, and says so before it starts and under its table.  The command line is
 * options.js's.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const qprintf = require('qprintf');
const chart = require('../shared/chart');
const { parseArgs, fail, QUICK_SECONDS } = require('./options');
const runner = require('./runner');
const { summarize } = require('../shared/statistics');
const report = require('./report');

const RESULTS_DIR = path.join(__dirname, '..', 'results');
const QUICK_RESULTS_DIR = path.join(RESULTS_DIR, 'quick');

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const scenarios = runner.loadScenarios(opts.only);
  if (opts.list) {
    for (const s of scenarios) console.log(qprintf.sprintf('%-28s %s: %s', s.id, s.group, s.label));
    return;
  }
  if (!scenarios.length) fail('no scenario matches --only ' + opts.only);

  const info = runner.systemInfo(opts);
  let modes = ['native', 'qtimers'];
  const qtimersProblem = runner.checkQtimers(opts);
  if (qtimersProblem) {
    console.log('WARNING: qtimers ' + qtimersProblem + '\nWARNING: measuring native timers only');
    modes = ['native'];
  }
  console.log('%s: %d scenarios x %d modes x %d rounds', report.describeRun(info, opts), scenarios.length, modes.length, opts.rounds);
  if (opts.quick) console.log(report.QUICK_CAVEAT + '\n');

  const started = Date.now();
  const onMeasured = (round, scenario, values, ratio) => report.printProgress(round, opts.rounds, scenario, values, ratio);
  const rows = summarize(runner.runAll(scenarios, modes, opts, onMeasured));
  report.printTable(rows, info, opts);

  // The files in results/ are what the README shows: only a full run of every scenario, of this
  // repository's qtimers, replaces them.  A quick run's go where git does not look, whatever it ran.
  const resultsDir = opts.quick ? QUICK_RESULTS_DIR : RESULTS_DIR;
  const written = [];
  if ((opts.only || opts.qtimers) && !opts.quick) {
    console.log((opts.only ? '--only' : '--qtimers') + ': results/ left as it was');
  } else {
    fs.mkdirSync(resultsDir, { recursive: true });
    // the README's chart is of the preloaded runs; the other position has its own table, and a
    // run with --als or --node another Node's (table-als.md, table-node24.md, table-require-node24.md)
    const other = (opts.als ? '-als' : '') + runner.otherNode(opts.node, info.node);
    const table = (opts.load === 'require' ? 'table-require' : 'table') + other + '.md';
    fs.writeFileSync(path.join(resultsDir, table), report.markdownTable(rows, info, opts));
    written.push(table);
    if (opts.chart && opts.load !== 'require' && other === '') {
      fs.writeFileSync(path.join(resultsDir, 'chart.svg'), chart.render(rows, {
        title: 'qtimers vs native timers, ' + info.node + (opts.quick ? ' (--quick: indicative only)' : ''),
        subtitle: report.describeMachine(info, opts),
      }));
      written.push('chart.svg');
    }
    console.log('wrote %s in %s', written.join(', '), path.relative(runner.ROOT, resultsDir) + path.sep);
  }
  const seconds = (Date.now() - started) / 1000;
  console.log('total %s s', seconds.toFixed(1));
  if (opts.quick && !opts.only && seconds > 1.5 * QUICK_SECONDS) {
    console.log('--quick took longer than the %d s it takes on an idle machine: this one was busy, ' +
      'which also moved the numbers above', QUICK_SECONDS);
  }

  const failed = rows.filter((row) => row.errors.length || row.warnings.length);
  if (failed.length) {
    console.log('\nPROBLEMS:');
    for (const row of failed) {
      for (const problem of row.errors.concat(row.warnings)) console.log('  %s %s', row.scenario.id, problem);
    }
    process.exitCode = 1;
  }
}

if (require.main === module) main();
