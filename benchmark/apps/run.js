#!/usr/bin/env node
/*
 * apps/run: `npm run bench:apps` (`-- --help`), what qtimers does to whole programs: an HTTP
 * service, connection heartbeats, a job queue, async.js pipelines, cooperative yielding and a
 * TTL cache (benchmark/apps/workloads/), each measured natively and with qtimers preloaded.
 *
 * Owns the run from end to end and nothing in between: the command line is options.js's, the
 * children and rounds runner.js's (side by side, two builds at once; docs/decisions.md,
 * 2026-11-26, says why), the medians and per-round ratios shared/statistics.js's, the wording
 * report.js's, the chart shared/chart.js's.  Prints the table, and after a full run of every
 * workload writes it with a chart to benchmark/results/apps.md and apps.svg (a --quick run
 * writes to benchmark/results/quick/, git-ignored: its figures are indicative only).
 * It must never write the results of a partial (--only) or --alone run over those of a full one.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const chart = require('../shared/chart');
const { summarizeWorkloads } = require('../shared/statistics');
const { parseArgs, UsageError, HELP } = require('./options');
const runner = require('./runner');
const report = require('./report');

const ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(ROOT, 'benchmark', 'results');
const QUICK_DIR = path.join(RESULTS_DIR, 'quick');          // git-ignored, as `npm run bench -- --quick` uses it

function main(argv) {
  let opts;
  let env;
  try {
    opts = parseArgs(argv);
    if (opts.help) return console.log(HELP);
    env = runner.checkEnvironment(opts);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error('bench:apps: ' + err.message);
    process.exitCode = 2;
    return;
  }
  const log = (line) => console.log(line);
  const started = Date.now();
  log(report.describeRun(env, opts) + ': ' + opts.workloads.length + ' workloads x 2 modes x ' + opts.rounds +
    ' rounds, then one profiled native run each');
  const rows = summarizeWorkloads(runner.runAll(opts, env, {
    measured: (result, label, pair) => log(report.measuredLine(result, label, pair)),
    profiled: (result, share) => log(report.profiledLine(result, share)),
  }));
  const seconds = (Date.now() - started) / 1000;
  report.printTable(rows, env, opts, log);

  // only a full run of every workload replaces what the README shows
  let dir = null;
  if (!opts.only && !opts.alone) dir = opts.quick ? QUICK_DIR : RESULTS_DIR;
  if (dir) {
    fs.mkdirSync(dir, { recursive: true });
    const base = 'apps';
    fs.writeFileSync(path.join(dir, base + '.md'), report.markdownTable(rows, env, opts, seconds));
    fs.writeFileSync(path.join(dir, base + '.svg'), chart.renderApps(rows, {
      title: 'qtimers vs native timers in application workloads',
      subtitle: report.describeRun(env, opts) + (opts.quick ? ' (indicative only)' : ''),
    }));
    log('wrote ' + path.relative(ROOT, path.join(dir, base + '.md')) + ' and .svg' +
      (opts.quick ? ' (--quick: indicative figures only)' : ''));
  } else {
    log((opts.alone ? '--alone' : '--only') + ': no results written');
  }
  log('total ' + seconds.toFixed(1) + ' s');

  const failed = rows.filter((row) => row.errors.length);
  if (failed.length) {
    log('\nPROBLEMS:');
    for (const row of failed) for (const error of row.errors) log('  ' + row.name + ' ' + error);
    process.exitCode = 1;
  }
}

if (require.main === module) main(process.argv.slice(2));
