#!/usr/bin/env node
'use strict';
/*
 * `npm run test:node`: Node's own timer tests, natively and with qtimers.
 *
 * Owns running them: every test/parallel/test-timers*.js of Node's source for the running
 * version (test/node/source.js gets it), each twice, natively and with qtimers preloaded
 * (`node -r <repo>/index.js` plus the flags its `// Flags:` line declares, and in NODE_OPTIONS so
 * that processes a test spawns get qtimers too), two processes at a time, each under a watchdog.
 * It prints one row per test and a closing line `N passed, N failed`, counting the qtimers runs
 * of the tests that pass natively: a test that fails natively on this machine (a different
 * Node version, no network, a missing fixture) says nothing about qtimers and is reported apart.
 * Exit status 0 when every natively passing test passes with qtimers, 1 when one does not,
 * 2 when there was nothing to run.
 * It must never count a native failure against qtimers, never let a hung test hang the run, and
 * never write outside a temporary directory of its own and the test cache.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const childProcess = require('child_process');
const source = require('./source');

const ROOT = path.resolve(__dirname, '../..');
const QTIMERS = path.join(ROOT, 'index.js');
const NODE_MODE_PRELOAD = path.join(__dirname, 'preload-node-mode.js');
// Node's own runner allows a test 120 s on slow machines; a timer test that passes takes seconds
const DEFAULT_TIMEOUT_SECONDS = 60;
const PARALLEL_RUNS = 2;
const FAILURE_LINES_SHOWN = 60;

const HELP = `usage: npm run test:node -- [options]     (or: node test/node/run.js [options])

Runs Node's own test/parallel/test-timers*.js twice each, natively and with qtimers preloaded,
and prints both outcomes; qtimers' count covers the tests that pass natively.

  --only PATTERN   only the tests whose file name matches this regular expression
  --mode node      also set setImmediate.maxTickDepth = 0 (Node's immediate semantics) in the
                   qtimers runs; the defaults are meant to pass on their own, and this mode tells
                   a knob's effect from a bug
  -v, --verbose    print the output of every run that fails where the native one passed
  --timeout S      kill a run after S seconds and count it as failed (default ${DEFAULT_TIMEOUT_SECONDS})
  --help           this text

Node's source (the running version's, ${process.version}, by default):
  QTIMERS_NODE_SOURCE         a directory holding test/parallel and test/common (an unpacked Node
                              source tree), a .tar.gz or .tar.xz of Node's source, or an http(s)
                              URL of one; default ${source.releaseTarballUrl(process.version)}
  QTIMERS_NODE_TESTS_CACHE    where unpacked tests are kept (default ~/.cache/qtimers-node-tests)
  Without access to nodejs.org, Debian's source package is the nearest version:
    QTIMERS_NODE_SOURCE=$(test/node/fetch-debian-source.sh) npm run test:node`;

function parseArgs(argv) {
  const opts = { only: null, mode: 'default', verbose: false, timeoutMs: DEFAULT_TIMEOUT_SECONDS * 1000 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usageError(`${arg}: missing value`);
      return argv[++i];
    };
    if (arg === '--help' || arg === '-h') {
      console.log(HELP);
      process.exit(0);
    } else if (arg === '--only') {
      const pattern = value();
      try {
        opts.only = new RegExp(pattern);
      } catch (err) {
        usageError(`--only ${pattern}: ${err.message}`);
      }
    } else if (arg === '--mode') {
      opts.mode = value();
      if (opts.mode !== 'node' && opts.mode !== 'default') usageError(`--mode ${opts.mode}: expected node or default`);
    } else if (arg === '--timeout') {
      const seconds = Number(value());
      if (!(seconds > 0)) usageError(`--timeout ${argv[i]}: expected a number of seconds`);
      opts.timeoutMs = seconds * 1000;
    } else if (arg === '-v' || arg === '--verbose') {
      opts.verbose = true;
    } else {
      usageError(`${arg}: unknown option (see --help)`);
    }
  }
  return opts;
}

function usageError(message) {
  console.error(`test:node: ${message}`);
  process.exit(2);
}

/* the options a test file declares on its `// Flags:` line, as Node's own test runner reads them */
function declaredFlags(file) {
  const match = /^\/\/ Flags:(.*)$/m.exec(fs.readFileSync(file, 'utf8'));
  return match ? match[1].trim().split(/\s+/).filter(Boolean) : [];
}

/* NODE_OPTIONS with one more --require, quoted as Node parses that variable */
function withPreload(nodeOptions, file) {
  const quoted = '"' + file.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
  return (nodeOptions ? nodeOptions + ' ' : '') + '--require ' + quoted;
}

/*
 * One run of one test: done({ outcome: 'pass' | 'skip' | 'FAIL' | 'TIMEOUT', output, ms }).
 * slot tells concurrent runs apart (Node's test/common gives each TEST_THREAD_ID its own tmpdir).
 */
function runTest(src, test, withQtimers, preload, slot, scratch, timeoutMs, done) {
  const argv = [];
  const env = Object.assign({}, process.env, { TEST_THREAD_ID: String(slot), NODE_TEST_DIR: scratch });
  if (withQtimers) {
    argv.push('-r', preload);
    env.NODE_OPTIONS = withPreload(process.env.NODE_OPTIONS, preload);
  }
  argv.push(...test.flags, test.file);
  const started = Date.now();
  const child = childProcess.spawn(process.execPath, argv, { cwd: src, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let timedOut = false;
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const watchdog = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  child.on('error', (err) => { output += `\n${err.message}`; });
  child.on('close', (code, signal) => {
    clearTimeout(watchdog);
    let outcome;
    if (timedOut) outcome = 'TIMEOUT';
    else if (code !== 0) outcome = 'FAIL';
    // common.skip() prints a TAP plan of zero tests and exits 0
    else if (/^1\.\.0 # Skipped/m.test(output)) outcome = 'skip';
    else outcome = 'pass';
    if (signal && !timedOut) output += `\n(killed by ${signal})`;
    done({ outcome, output, ms: Date.now() - started });
  });
}

/* call start(job, slot, finished) for every job, PARALLEL_RUNS at a time, then done() */
function runAll(jobs, start, done) {
  let next = 0;
  let running = 0;
  const freeSlots = [];
  for (let slot = PARALLEL_RUNS - 1; slot >= 0; slot--) freeSlots.push(slot);
  const launch = () => {
    if (next >= jobs.length && running === 0) return done();
    while (running < PARALLEL_RUNS && next < jobs.length) {
      const slot = freeSlots.pop();
      running += 1;
      start(jobs[next++], slot, () => {
        running -= 1;
        freeSlots.push(slot);
        launch();
      });
    }
  };
  launch();
}

function pad(text, width) {
  return text.length >= width ? text + ' ' : text + ' '.repeat(width - text.length);
}

function indent(text) {
  const lines = text.trimEnd().split('\n');
  const shown = lines.length > FAILURE_LINES_SHOWN
    ? [`(${lines.length - FAILURE_LINES_SHOWN} lines left out)`].concat(lines.slice(-FAILURE_LINES_SHOWN))
    : lines;
  return shown.map((line) => '    | ' + line).join('\n');
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const log = (message) => console.log(`test:node: ${message}`);
  let src;
  try {
    src = await source.getSource(process.env.QTIMERS_NODE_SOURCE, log);
  } catch (err) {
    console.error(`test:node: ${err.message}`);
    process.exit(2);
  }

  console.log(`Node's timer tests from ${src.dir}${src.version ? ` (Node ${src.version})` : ''}, run by Node ${process.version}`);
  if (!src.version) {
    console.log('WARNING: nothing in this source tells its Node version (no src/node_version.h); ' +
      'a test written for another version may fail natively, which is reported but not counted');
  } else if (src.version !== process.version) {
    console.log(`WARNING: these are Node ${src.version}'s tests, running under Node ${process.version}: ` +
      'a test may fail natively (reported, not counted) or check behaviour this Node does not have');
  }

  const parallel = path.join(src.dir, 'test', 'parallel');
  const tests = fs.readdirSync(parallel)
    .filter((name) => /^test-timers.*\.js$/.test(name) && (!opts.only || opts.only.test(name)))
    .sort()
    .map((name) => {
      const file = path.join(parallel, name);
      return { name, file, flags: declaredFlags(file), native: null, qtimers: null };
    });
  if (!tests.length) {
    console.error(`test:node: no test-timers*.js${opts.only ? ` matches --only ${opts.only.source}` : ''} in ${parallel}`);
    process.exit(2);
  }
  const preload = opts.mode === 'node' ? NODE_MODE_PRELOAD : QTIMERS;
  console.log(`${tests.length} tests, natively and with qtimers (${opts.mode === 'node'
    ? 'setImmediate.maxTickDepth = 0' : 'its defaults'}), ${PARALLEL_RUNS} processes at a time, ` +
    `${opts.timeoutMs / 1000} s watchdog each\n`);

  // test/common's tmpdir (NODE_TEST_DIR) and nothing else is written: keep it out of the source
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'qtimers-node-tests-'));
  const width = Math.max(...tests.map((test) => test.name.length)) + 2;
  console.log(pad('test', width) + pad('native', 9) + 'qtimers');
  let printed = 0;
  // rows come out in file order, each as soon as it and every row before it are complete
  const printReady = () => {
    while (printed < tests.length && tests[printed].native && tests[printed].qtimers) {
      const test = tests[printed++];
      console.log(pad(test.name, width) + pad(test.native.outcome, 9) + test.qtimers.outcome);
      if (opts.verbose && test.native.outcome === 'pass' && test.qtimers.outcome !== 'pass') {
        console.log(indent(test.qtimers.output || '(no output)'));
      }
    }
  };
  const jobs = [];
  for (const test of tests) jobs.push({ test, withQtimers: false }, { test, withQtimers: true });
  runAll(jobs, (job, slot, finished) => {
    runTest(src.dir, job.test, job.withQtimers, preload, slot, scratch, opts.timeoutMs, (result) => {
      job.test[job.withQtimers ? 'qtimers' : 'native'] = result;
      printReady();
      finished();
    });
  }, () => {
    fs.rmSync(scratch, { recursive: true, force: true });
    summarize(tests, opts);
  });
}

function summarize(tests, opts) {
  const counted = tests.filter((test) => test.native.outcome === 'pass');
  const failed = counted.filter((test) => test.qtimers.outcome !== 'pass');
  const nativeFailures = tests.filter((test) => test.native.outcome === 'FAIL' || test.native.outcome === 'TIMEOUT');
  const skipped = tests.filter((test) => test.native.outcome === 'skip');
  console.log('');
  if (nativeFailures.length) {
    console.log(`fail natively on this machine, not counted: ${nativeFailures.map((test) => test.name).join(' ')}`);
  }
  if (skipped.length) console.log(`skipped natively (the test's own condition), not counted: ${skipped.length}`);
  if (failed.length) {
    console.log(`fail only with qtimers: ${failed.map((test) => test.name).join(' ')}` +
      (opts.verbose ? '' : '  (-v shows their output)'));
  }
  console.log(`${counted.length - failed.length} passed, ${failed.length} failed`);
  // a run in which no test passed natively compared nothing: that is a failure, not a pass
  if (!counted.length) console.log('no test passed natively: nothing was compared');
  process.exitCode = failed.length || !counted.length ? 1 : 0;
}

module.exports = { declaredFlags, withPreload };

if (require.main === module) main();
