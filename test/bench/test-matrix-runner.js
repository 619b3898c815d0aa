'use strict';
// `npm run test:matrix` (test/matrix/run-matrix.js) on a made-up project whose suite fails or
// passes, with this Node standing in for a cached major (no download): a failed test file is
// rerun once, alone, and the major passes only if it passes then; the summary says which major
// failed or passed on a rerun and repeats what failed after the table, because CI may keep only
// the end of the log.  Nothing here downloads a Node or runs the real suite.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { ROOT } = require('../helpers/child');

const RUN_MATRIX = path.join(ROOT, 'test', 'matrix', 'run-matrix.js');
const MAJOR = process.versions.node.split('.')[0];

// a project whose test script prints `lines` and exits with `code`, whose `qnit` (the rerun of
// failed files) prints what it was asked to run and exits with `rerunCode`, and a node cache
// holding this Node as its major; returns the matrix run's status and output
function runMatrixOn(lines, code, rerunCode) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qtimers-matrix-'));
  try {
    const project = path.join(dir, 'project'), cache = path.join(dir, 'cache');
    fs.mkdirSync(path.join(project, 'node_modules', 'qnit', 'bin'), { recursive: true });
    fs.writeFileSync(path.join(project, 'node_modules', 'qnit', 'bin', 'qnit'), '');
    fs.mkdirSync(path.join(project, 'node_modules', '.bin'));
    fs.writeFileSync(path.join(project, 'node_modules', '.bin', 'qnit'),
      '#!/bin/sh\necho "rerun of: $*"\nexit ' + (rerunCode || 0) + '\n', { mode: 0o755 });
    fs.writeFileSync(path.join(project, 'suite.js'),
      'console.log(' + JSON.stringify(lines.join('\n')) + '); process.exitCode = ' + code + ';\n');
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ scripts: { test: 'node suite.js' } }));
    fs.mkdirSync(path.join(cache, MAJOR, 'bin'), { recursive: true });
    fs.symlinkSync(process.execPath, path.join(cache, MAJOR, 'bin', 'node'));
    const res = spawnSync(process.execPath, [RUN_MATRIX, '--only', MAJOR, '--project', project, '--timeout', '60'],
      { encoding: 'utf8', timeout: 60000, env: Object.assign({}, process.env, { QTIMERS_NODE_CACHE: cache }) });
    return { status: res.status, stdout: res.stdout, summary: res.stdout.slice(res.stdout.indexOf('major  version')) };
  }
  finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const FAILING_SUITE = [
  'test/system/test-a.js:',
  ' - passes (1.0ms)',
  'AssertionError: 3 == 4',
  '    at Object.fails (/x/test-a.js:3:5)',
  ' X fails under load (12.3ms)',
  ' - passes too (1.0ms)',
  '',
  'ERROR: 1 errors, 9 assertions, 1 errors, 3 tests, 1 files, 0 skipped (20ms)',
];

module.exports = {
  'a failed test file is rerun once: passing then, the major passes and the summary names the file': function(t) {
    const res = runMatrixOn(FAILING_SUITE, 2, 0);
    t.equal(res.status, 0, res.stdout);
    t.ok(res.stdout.indexOf('rerun of: test/system/test-a.js\n') > 0, 'only the failed file is rerun: ' + res.stdout);
    t.ok(/pass \(1 file\(s\) failed once, passed when rerun: test\/system\/test-a\.js\)/.test(res.summary), res.summary);
    t.ok(res.summary.indexOf(' X fails under load') > 0, 'the first failure is still shown: ' + res.summary);
    t.ok(/matrix: 1 passed, 0 failed/.test(res.summary), res.summary);
    t.done();
  },


  'a file that fails again when rerun: the major fails, and the summary repeats the failed test and its error': function(t) {
    const res = runMatrixOn(FAILING_SUITE, 2, 2);
    t.equal(res.status, 1, res.stdout);
    t.ok(/FAIL: exit code 2/.test(res.summary), res.summary);
    const digest = res.summary.slice(res.summary.indexOf('what failed'));
    t.ok(res.summary.indexOf('what failed') > 0, res.summary);
    t.ok(digest.indexOf(' X fails under load') > 0, digest);
    t.ok(digest.indexOf('AssertionError: 3 == 4') > 0, digest);
    t.ok(digest.indexOf('ERROR: 1 errors') > 0, digest);
    t.ok(digest.indexOf('    at Object.fails') < 0, 'stack frames left out: ' + digest);
    t.ok(digest.indexOf(' - passes') < 0, 'passed tests left out: ' + digest);
    t.ok(digest.indexOf('and when rerun (exit code 2)') > 0, digest);
    t.ok(digest.indexOf('rerun of: test/system/test-a.js') > digest.indexOf('and when rerun'), 'a rerun without a failure line shows its last lines: ' + digest);
    t.ok(/matrix: 0 passed, 1 failed\s*$/.test(res.stdout), 'the count is the last line: ' + res.stdout.slice(-200));
    t.done();
  },

  'a suite that fails without a failed-test line (the linter): no rerun, the summary shows its last lines': function(t) {
    const res = runMatrixOn(['starting', 'something went wrong somewhere'], 3, 0);
    t.equal(res.status, 1, res.stdout);
    t.ok(res.stdout.indexOf('rerun of') < 0, res.stdout);
    t.ok(/what failed \(exit code 3\)/.test(res.summary), res.summary);
    t.ok(res.summary.indexOf('something went wrong somewhere') > 0, res.summary);
    t.done();
  },

  'a passing suite: no failure section': function(t) {
    const res = runMatrixOn([' - passes (1.0ms)', 'OK: 1 assertions, 0 errors, 1 tests, 1 files, 0 skipped'], 0);
    t.equal(res.status, 0, res.stdout);
    t.ok(res.summary.indexOf('what failed') < 0, res.summary);
    t.ok(/matrix: 1 passed, 0 failed/.test(res.summary), res.summary);
    t.done();
  },
};
