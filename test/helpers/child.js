'use strict';
// Runs a snippet of JavaScript in a fresh Node process (the same node binary as the tests), with
// qtimers preloaded or not, and returns its exit status and output.  Behaviour that involves
// process exit (unref, uncaught exceptions) can only be observed this way.

const { spawnSync } = require('child_process');
const path = require('path');

const ROOT = path.resolve(__dirname, '../..');
const PRELOAD = path.join(ROOT, 'index.js');

/*
 * run(source, { qtimers: true, args: [], env: {}, timeout: 20000 })
 * The source runs as a CommonJS module (node -e), with `ROOT` defined as the repo path.
 */
function run(source, options) {
  options = options || {};
  const argv = [];
  if (options.qtimers !== false) argv.push('-r', PRELOAD);
  if (options.nodeArgs) argv.push(...options.nodeArgs);
  argv.push('-e', `const ROOT = ${JSON.stringify(ROOT)};\n${source}`);
  if (options.args) argv.push('--', ...options.args);
  const res = spawnSync(process.execPath, argv, {
    encoding: 'utf8',
    timeout: options.timeout || 20000,
    env: Object.assign({}, process.env, options.env || {}),
  });
  return { status: res.status, signal: res.signal, stdout: res.stdout, stderr: res.stderr, error: res.error };
}

/* run() and parse the last stdout line as JSON */
function runJson(source, options) {
  const res = run(source, options);
  const lines = res.stdout.trim().split('\n');
  try {
    res.json = JSON.parse(lines[lines.length - 1]);
  } catch (err) {
    res.json = undefined;
  }
  return res;
}

module.exports = { run, runJson, ROOT, PRELOAD };
