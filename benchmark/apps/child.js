/*
 * apps/child: the measured process of one application workload (`npm run bench:apps`).
 *
 * Owns what every workload's process does around the workload itself: picking the workload and
 * its size from the command line, the measurement window (a warm-up, then a window whose CPU,
 * wall time and units of work are read from the workload's own code, or opened and closed by
 * the workload where an outside load generator decides, as for HTTP), the heap figure, and the
 * one machine-readable line runner.js parses:
 *
 *     RESULT {"metrics": {...}, "windowUs": [start, end], ...}
 *
 * Invoked as `node [--expose-gc] [-r qtimers] benchmark/apps/child.js NAME SIZE` with SIZE one
 * of full, quick or smoke (each workload file has one set of parameters per size).
 * It must never make a timer of its own for measuring (it would be measured too, and a native
 * one cannot be told apart from the workload's under a profiler), and never decide a result:
 * a workload that fails, or whose check(extra) finds its checksum not that of the work it
 * counted, exits non-zero without a RESULT line.
 */
'use strict';

const path = require('path');

const WORKLOADS_DIR = path.join(__dirname, 'workloads');

/*
 * A measurement window over a workload's own stream of work.  count(n) is called by the
 * workload after every batch of n units (requests, messages, jobs, iterations, ...); it reads
 * the clock then, never in between, and returns true once the window has closed.  The window
 * opens at the first count() at or after warmupMs from creation and closes at the first one
 * at or after windowMs later.  open() and close() do the same by hand, for workloads whose
 * window is decided elsewhere (the HTTP load generator).
 */
class Meter {
  constructor(warmupMs, windowMs) {
    this.warmupNs = BigInt(Math.round(warmupMs * 1e6));
    this.windowNs = BigInt(Math.round(windowMs * 1e6));
    this.created = process.hrtime.bigint();
    this.units = 0;
    this.state = 'warmup';
    this.wall0 = 0n;
    this.cpu0 = null;
    this.units0 = 0;
    this.result = null;
  }

  count(n) {
    this.units += n;
    if (this.state === 'closed') return true;
    const now = process.hrtime.bigint();
    if (this.state === 'warmup') {
      if (now - this.created >= this.warmupNs) this.openAt(now);
      return false;
    }
    if (now - this.wall0 < this.windowNs) return false;
    this.closeAt(now);
    return true;
  }

  /* count n units without reading the clock (for a window opened and closed by hand) */
  add(n) {
    this.units += n;
  }

  open() {
    if (this.state === 'warmup') this.openAt(process.hrtime.bigint());
  }

  close() {
    if (this.state === 'open') this.closeAt(process.hrtime.bigint());
  }

  get closed() {
    return this.state === 'closed';
  }

  openAt(now) {
    this.state = 'open';
    this.wall0 = now;
    this.cpu0 = process.cpuUsage();
    this.switches0 = contextSwitches();
    this.units0 = this.units;
  }

  closeAt(now) {
    const cpu = process.cpuUsage(this.cpu0);
    const switches = contextSwitches() - this.switches0;
    this.state = 'closed';
    this.result = {
      wallSeconds: Number(now - this.wall0) / 1e9,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      units: this.units - this.units0,
      // every thread's, V8's helper threads included: a helper woken for a young-generation
      // collection shows here and in cpuSeconds, not in the main thread's profile
      contextSwitches: switches,
      // the same clock as a V8 CPU profile's timestamps (both CLOCK_MONOTONIC, in µs), so
      // profile.js can keep only the samples of this window
      windowUs: [Number(this.wall0 / 1000n), Number(now / 1000n)],
    };
  }
}

/* context switches of all the process's threads so far (getrusage), voluntary or not */
function contextSwitches() {
  const usage = process.resourceUsage();
  return usage.voluntaryContextSwitches + usage.involuntaryContextSwitches;
}

/* heap in use after full collections (the child runs with --expose-gc), in MB */
function settledHeapMB() {
  if (typeof global.gc !== 'function') throw new Error('heap figures need node --expose-gc');
  global.gc();
  global.gc();
  return process.memoryUsage().heapUsed / (1024 * 1024);
}

/* the names of the workloads, in table order */
const ORDER = ['http', 'heartbeats', 'heartbeats-coarse', 'job-queue', 'async', 'async-immediate', 'yielding', 'ttl-cache',
  'ttl-cache-coarse'];

function load(name) {
  if (!ORDER.includes(name)) throw new Error(name + ': no such workload (' + ORDER.join(', ') + ')');
  return require(path.join(WORKLOADS_DIR, name + '.js'));
}

/* how many pairs of runs (native and qtimers) a workload makes per round at this size */
function pairsPerRound(workload, size) {
  return workload.sizes[size].pairsPerRound || 1;
}

function main(argv) {
  const name = argv[0];
  const sizeName = argv[1] || 'full';
  const workload = load(name);
  const size = workload.sizes[sizeName];
  if (!size) throw new Error(sizeName + ': no such size (full, quick, smoke)');
  const meter = new Meter(size.warmupMs, size.windowMs);
  workload.run(size, meter, function done(metrics, extra) {
    if (!meter.result) throw new Error(name + ': finished without a closed measurement window');
    // a workload that reports a checksum proves with it that it did the work it counted
    const wrong = typeof workload.check === 'function' ? workload.check(extra) : null;
    if (wrong) throw new Error(name + ': ' + wrong);
    const result = Object.assign({ metrics }, meter.result, extra || {});
    process.stdout.write('RESULT ' + JSON.stringify(result) + '\n');
    // pending timers (idle timeouts, cache entries) would keep the process alive; it is over
    process.exit(0);
  });
}

module.exports = { Meter, settledHeapMB, load, pairsPerRound, ORDER, WORKLOADS_DIR };

if (require.main === module) main(process.argv.slice(2));
