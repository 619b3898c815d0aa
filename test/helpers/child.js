'use strict';
// Runs a snippet of JavaScript in a fresh Node process (the same node binary as the tests), with
// qtimers preloaded or not, and returns its exit status and output.  Behaviour that involves
// process exit (unref, uncaught exceptions) can only be observed this way.

const childProcess = require('child_process');
const { spawnSync } = childProcess;
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '../..');
const PRELOAD = path.join(ROOT, 'index.js');
const PROBE = path.join(__dirname, 'probe.js');

/*
 * probe(): node arguments that preload test/helpers/probe.js before anything else, the
 * environment it reports through, and installed(pid): whether qtimers was in place when that
 * child exited (true or false; undefined if it did not get to say, e.g. killed)
 */
let probes = 0;
function probe() {
  const file = path.join(os.tmpdir(), `qtimers-probe-${process.pid}-${++probes}`);
  return {
    argv: ['-r', PROBE],
    env: { QTIMERS_TEST_PROBE: file },
    installed(pid) {
      let lines = [];
      try { lines = fs.readFileSync(file, 'utf8').split('\n'); } catch (err) { return undefined; }
      fs.rmSync(file, { force: true });
      const line = lines.find((l) => l.split(' ')[0] === String(pid));
      return line === undefined ? undefined : line.split(' ')[1] === 'true';
    },
  };
}

/*
 * expectImpl(res, expect): throw unless the child ran on what `expect` says, 'qtimers' or
 * 'native' (null: either, for a program that uninstalls or is meant to fail to install)
 */
function expectImpl(res, expect) {
  // killed by a signal: it could not say (the caller sees the signal)
  if (expect === null || (res.installed === undefined && res.signal)) return res;
  if (res.installed !== (expect === 'qtimers')) {
    throw new Error(`the child was meant to run on ${expect} but qtimers was ${res.installed === undefined ? 'not reported' : res.installed ? 'in place' : 'not in place'} at its exit (status ${res.status}, signal ${res.signal}): ${res.stderr}`);
  }
  return res;
}

/*
 * node [probe] [-r qtimers] [nodeArgs] ...program ...args, synchronously, with a timeout.
 * options.expect: what the child must run on at its exit, 'qtimers' or 'native' (by default
 * 'qtimers' when preloaded, 'native' when not), or null: either (a program that uninstalls).
 */
function exec(program, args, options) {
  const seen = probe();
  const argv = seen.argv.slice();
  if (options.qtimers !== false) argv.push('-r', PRELOAD);
  if (options.nodeArgs) argv.push(...options.nodeArgs);
  argv.push(...program, ...args);
  const res = spawnSync(process.execPath, argv, {
    encoding: 'utf8',
    timeout: options.timeout || 20000,
    cwd: options.cwd,
    env: Object.assign({}, process.env, options.env || {}, seen.env),
  });
  const out = { status: res.status, signal: res.signal, stdout: res.stdout, stderr: res.stderr, error: res.error,
    installed: seen.installed(res.pid) };
  const expect = options.expect !== undefined ? options.expect : options.qtimers !== false ? 'qtimers' : 'native';
  return expectImpl(out, expect);
}

/*
 * run(source, { qtimers: true, args: [], env: {}, timeout: 20000, expect })
 * The source runs as a CommonJS module (node -e), with `ROOT` defined as the repo path.
 */
function run(source, options) {
  options = options || {};
  return exec(['-e', `const ROOT = ${JSON.stringify(ROOT)};\n${source}`], options.args ? ['--', ...options.args] : [], options);
}

/*
 * runFile(file, options): a script file instead (`node -r qtimers file.js args`), as a program
 * is run, which qtimers can tell from code given with -e (lib/context.js)
 */
function runFile(file, options) {
  options = options || {};
  return exec([file], options.args || [], options);
}

/* the last stdout line of a run, parsed as JSON (undefined if it is not) */
function withJson(res) {
  const lines = (res.stdout || '').trim().split('\n');
  try {
    res.json = JSON.parse(lines[lines.length - 1]);
  } catch (err) {
    res.json = undefined;
  }
  return res;
}

/* run() and parse the last stdout line as JSON */
function runJson(source, options) {
  return withJson(run(source, options));
}

/* runFile() and parse the last stdout line as JSON */
function runFileJson(file, options) {
  return withJson(runFile(file, options));
}

/*
 * spawn(command, argv, limit, done): the asynchronous run(), for long children that several
 * tests share; done({ code, signal, timedOut, out, err }).  `limit` is the watchdog's timeout
 * in ms, or { timeout, cwd, env, processGroup }: env is added to this process's environment,
 * and with processGroup the child leads a process group of its own, all of which the watchdog
 * kills (a test runner's workers too).  A child still running after the timeout is killed.
 * When the command is this node, the probe is preloaded and `installed` says whether qtimers
 * was in place at the child's exit (the caller knows which it meant).
 */
function spawn(command, argv, limit, done) {
  const options = typeof limit === 'number' ? { timeout: limit } : limit;
  const seen = command === process.execPath ? probe() : null;
  const child = childProcess.spawn(command, seen ? seen.argv.concat(argv) : argv, {
    cwd: options.cwd,
    env: Object.assign({}, process.env, options.env || {}, seen ? seen.env : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.processGroup === true,
  });
  let out = '';
  let err = '';
  let timedOut = false;
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  const timer = setTimeout(() => {
    timedOut = true;
    if (options.processGroup !== true) return child.kill('SIGKILL');
    try { process.kill(-child.pid, 'SIGKILL'); } catch (e) { child.kill('SIGKILL'); }
  }, options.timeout);
  child.on('close', (code, signal) => {
    clearTimeout(timer);
    done({ code, signal, timedOut, out, err, installed: seen ? seen.installed(child.pid) : undefined });
  });
}

/* the last line of a child's output, parsed as JSON, or null */
function lastJson(out) {
  const lines = out.trim().split('\n');
  try {
    return JSON.parse(lines[lines.length - 1]);
  } catch (e) {
    return null;
  }
}

/*
 * Call start(name, finished) for each name, two at a time (the machine has two cores), and
 * done() when every one has called finished().
 */
function twoAtATime(names, start, done) {
  let next = 0;
  let running = 0;
  const launch = () => {
    if (next >= names.length && running === 0) return done();
    while (running < 2 && next < names.length) {
      running += 1;
      start(names[next++], () => {
        running -= 1;
        launch();
      });
    }
  };
  launch();
}

module.exports = { run, runJson, runFile, runFileJson, spawn, lastJson, twoAtATime, probe, expectImpl, ROOT, PRELOAD };
