/*
 * apps/pair: two measured children at once, for `npm run bench:apps -- --paired`.
 *
 * Owns running them side by side: argv[2] is a JSON array of two jobs, { node, args, cwd,
 * timeoutMs }, started in that order (the second as soon as the first is spawned, so their
 * warm-ups and windows overlap); when both have ended it prints one JSON line, for each job
 * in order { status, signal, stdout, stderr, timedOut }.  runner.js builds the jobs and reads the
 * results, and runs this script itself under a watchdog.
 * Why at once: this machine's load moves one process's CPU per unit of work by 15-35% from one
 * run to the next; two processes running through the same minute meet the same load, so their
 * ratio keeps what separates the builds and little of the rest.
 * It must never leave a child running past its own watchdog (SIGKILL), nor print before both
 * have ended.
 */
'use strict';

const { spawn } = require('child_process');

const jobs = JSON.parse(process.argv[2]);
const results = new Array(jobs.length);
let running = jobs.length;

function finish(i, result) {
  results[i] = result;
  if (--running === 0) process.stdout.write(JSON.stringify(results) + '\n');
}

jobs.forEach((job, i) => {
  const child = spawn(job.node, job.args, { cwd: job.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let timedOut = false;
  let ended = false;
  child.stdout.setEncoding('utf8').on('data', (text) => { stdout += text; });
  child.stderr.setEncoding('utf8').on('data', (text) => { stderr += text; });
  const watchdog = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, job.timeoutMs);
  const end = (status, signal, error) => {
    if (ended) return;
    ended = true;
    clearTimeout(watchdog);
    finish(i, { status, signal, stdout, stderr: error ? String(error.message) : stderr, timedOut });
  };
  child.on('error', (error) => end(null, null, error));
  child.on('close', (status, signal) => end(status, signal, null));
});
