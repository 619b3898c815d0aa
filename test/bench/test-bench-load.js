'use strict';
// `npm run bench:load` (benchmark/load/): a one-run --quick prints every row, each qtimers
// variant really had qtimers in place and each native one did not (run.js refuses otherwise),
// and nothing is written to the results; the report's arithmetic on made-up samples.  Nothing
// here times anything.

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { ROOT } = require('../helpers/child');
const load = require('../../benchmark/load/run');

const RUN = path.join(ROOT, 'benchmark', 'load', 'run.js');
const RESULT_FILE = load.resultFile(process.execPath, process.version);
const stamp = () => (fs.existsSync(RESULT_FILE) ? fs.statSync(RESULT_FILE).mtimeMs : null);

module.exports = {
  'bench:load --quick runs every variant, proves which had qtimers, prints every row and writes nothing': function(t) {
    const before = stamp();
    const res = spawnSync(process.execPath, [RUN, '--quick', '--runs', '1'], { encoding: 'utf8', timeout: 120000 });
    t.equal(res.status, 0, res.stderr);
    t.ok(/indicative only/.test(res.stdout), res.stdout);
    for (const [label] of load.ROWS) t.ok(res.stdout.indexOf('| ' + label + ' |') >= 0, label + ': ' + res.stdout);
    t.ok(!/written to/.test(res.stdout), res.stdout);
    t.equal(stamp(), before, 'results/load.md untouched');
    t.done();
  },

  'bench:load refuses bad options with its usage': function(t) {
    const res = spawnSync(process.execPath, [RUN, '--runs', '0'], { encoding: 'utf8', timeout: 60000 });
    t.equal(res.status, 2);
    t.ok(/usage: npm run bench:load/.test(res.stderr), res.stderr);
    t.done();
  },

  'the report gives medians with quartiles and the difference of the medians': function(t) {
    const samples = {
      'native': { wallMs: [10, 30, 20, 40, 50] },
      'preload': { wallMs: [32, 22, 42, 52, 12] },
      'first line': { wallMs: [15, 25, 35, 45, 55], requireMs: [4, 2, 3, 1, 5] },
      'native first timer': { callMs: [0.1, 0.1, 0.1], firedAfterMs: [5.1, 5.2, 5.3] },
      'preload first timer': { callMs: [0.5, 0.5, 0.5], firedAfterMs: [5.5, 5.6, 5.7] },
    };
    const text = load.report(samples, { node: 'node v0.0.0 x64', cpu: 'a CPU', cores: 2, runs: 5, quick: false });
    t.ok(text.startsWith('**What loading qtimers adds to a process**: node v0.0.0 x64, a CPU (2 cores), 5 runs, '), text);
    t.ok(text.indexOf('| 30.00 (20.00-40.00) | 32.00 (22.00-42.00) | +2.00 |') > 0, text);
    t.ok(text.indexOf('| 30.00 (20.00-40.00) | 35.00 (25.00-45.00) | +5.00 |') > 0, text);
    t.ok(/itself \(ms\) \| {2}\| 3\.00 \(2\.00-4\.00\) \| {2}\|/.test(text), text);
    t.ok(text.indexOf('| 5.20 (5.15-5.25) | 5.60 (5.55-5.65) | +0.40 |') > 0, text);
    t.equal(load.quantile([3, 1, 2], 0.5), 2);
    t.equal(path.basename(load.resultFile(process.execPath, process.version)), 'load.md');
    t.equal(path.basename(load.resultFile('/elsewhere/bin/node', 'v24.21.0')), 'load-node24.md');
    t.done();
  },
};
