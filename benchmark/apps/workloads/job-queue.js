/*
 * job-queue: many small async jobs through p-queue with a concurrency limit, an interval rate
 * limit and a per-job timeout (p-queue's `timeout`, which arms a setTimeout per job through
 * p-timeout and clears it when the job settles).
 *
 * A producer keeps the queue topped up (onSizeLessThan) so the workers never starve; each job
 * does a little synchronous work and awaits once, like a job whose I/O is already done.  The
 * rate limit (INTERVAL_CAP jobs per INTERVAL_MS) is far above what the process can run, so it
 * is checked on every job, as in production, without deciding the figure.
 * Figure: jobs completed per CPU-second (the window's process CPU, user + system), the queue
 * running flat out: what it would do per wall second on a core of its own, and a figure that a
 * busy neighbour on a shared machine does not move the way it moves a wall-clock rate.
 * It must never let the rate limit bind: the result reports how many jobs a full interval
 * would allow, so a reader can check; and never skip or repeat a job: check() recomputes the
 * checksum of the jobs that ended, and a run whose checksum differs fails.
 */
'use strict';

const CONCURRENCY = 16;
const INTERVAL_MS = 100;
const INTERVAL_CAP = 1000000;
const JOB_TIMEOUT_MS = 30000;
const TOP_UP = 256;

module.exports = {
  title: 'Job queue',
  describe: 'p-queue, concurrency 16, a rate limit per 100 ms interval, a 30 s timeout per job',
  metrics: [
    { key: 'jobsPerCpuSecond', label: 'jobs per CPU-second', unit: 'jobs/cpu-s', better: 'higher' },
  ],
  // Many short pairs of runs (runner.js counts each pair as a round), as for async.js (async.js
  // says why): the same build side by side with itself came out 0.59x to 1.29x over six pairs
  // (Node 20), its processes running 89-137 thousand jobs per CPU-second.
  sizes: {
    full: { warmupMs: 1000, windowMs: 1500, pairsPerRound: 4 },
    quick: { warmupMs: 500, windowMs: 1000, pairsPerRound: 3 },
    smoke: { warmupMs: 50, windowMs: 150 },
  },
  run,
  check,
};

/* job n's share of the checksum */
function work(n) {
  let x = n;
  for (let i = 0; i < 16; i++) x = (x * 31 + i) | 0;
  return x;
}

/* null if the checksum is that of jobs 0 to jobsDone - 1, each once (p-queue runs them in the
   order they were added, each to its end after one await, so the first jobsDone have ended) */
function check(extra) {
  let expected = 0;
  for (let n = 0; n < extra.jobsDone; n++) expected = (expected + work(n)) | 0;
  return extra.checksum === expected ? null
    : 'checksum ' + extra.checksum + ' is not that of the first ' + extra.jobsDone + ' jobs (' + expected + ')';
}

function run(size, meter, done) {
  // p-queue is an ES module; import() loads it from CommonJS on every supported Node
  import('p-queue').then(({ default: PQueue }) => {
    const queue = new PQueue({ concurrency: CONCURRENCY, interval: INTERVAL_MS, intervalCap: INTERVAL_CAP,
      timeout: JOB_TIMEOUT_MS });
    let completed = 0;
    let jobsDone = 0;
    let checksum = 0;
    async function job(n) {
      const x = work(n);
      await null;
      checksum = (checksum + x) | 0;
      completed += 1;
      jobsDone += 1;
    }
    let next = 0;
    let finished = false;
    async function produce() {
      while (!finished) {
        for (let i = 0; i < TOP_UP; i++) queue.add(job.bind(null, next++));
        await queue.onSizeLessThan(TOP_UP);
        if (meter.count(completed)) finished = true;
        completed = 0;
      }
    }
    produce().then(() => {
      queue.clear();
      const m = meter.result;
      done({ jobsPerCpuSecond: m.units / m.cpuSeconds },
        { jobsPerSecond: m.units / m.wallSeconds, rateLimitJobsPerSecond: INTERVAL_CAP * 1000 / INTERVAL_MS,
          checksum, jobsDone });
    });
  });
}
