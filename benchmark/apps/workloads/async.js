/*
 * async: async.js (v3) pipelines over many items with synchronous workers, as the library's
 * users write them: async.eachLimit over a batch of items, and an async.queue fed the same
 * items, alternating; each worker does a little synchronous work and calls back at once.
 *
 * async v3 defers its own callbacks (async.queue's processing, async.setImmediate,
 * ensureAsync) with queueMicrotask where that exists, which it does on every supported Node:
 * this is the row that shows what qtimers does to a program whose timers library is not on
 * the hot path.  async-immediate.js is the same pipeline whose workers call back through
 * setImmediate, the usual way to keep a synchronous worker from growing the stack.
 * Figure: items per CPU-second (see job-queue.js for why CPU-seconds).
 * It must never change the pipeline between the two files except how a worker calls back.
 */
'use strict';

const async = require('async');

const BATCH = 2000;
const LIMIT = 16;

module.exports = {
  title: 'async.js pipelines',
  describe: 'async.eachLimit (limit 16) and async.queue (concurrency 16), synchronous workers',
  metrics: [
    { key: 'itemsPerCpuSecond', label: 'items per CPU-second', unit: 'items/cpu-s', better: 'higher' },
  ],
  // Many short pairs of runs rather than a few long ones (runner.js counts each pair as a round):
  // one process of this workload runs anywhere from 6.5 to 10.6 million items per CPU-second
  // natively (Node 20, twenty runs), and its CPU profile shows why: which of async.js's
  // functions take the time differs from one process to the next, as V8's optimizing
  // compiler inlined differently.  The same build side by side with itself came out 0.69x to
  // 1.62x (five pairs, where heartbeats and the TTL cache came out 0.97-1.03x and 0.93-1.04x).
  sizes: {
    full: { warmupMs: 500, windowMs: 1500, pairsPerRound: 4 },
    quick: { warmupMs: 500, windowMs: 1000, pairsPerRound: 3 },
    smoke: { warmupMs: 50, windowMs: 150 },
  },
  run(size, meter, done) {
    pipeline(meter, done, function callBack(callback) { callback(); });
  },
  check,
  pipeline,
};

/* one item's share of the checksum; every batch runs each item once */
function work(item) {
  let x = item.value;
  for (let i = 0; i < 8; i++) x = (x * 31 + i) | 0;
  return x;
}

function batchItems() {
  const items = [];
  for (let i = 0; i < BATCH; i++) items.push({ id: i, value: i * 7 });
  return items;
}

/* null if the checksum is that of `batches` whole batches (no item skipped or run twice) */
function check(extra) {
  let once = 0;
  for (const item of batchItems()) once = (once + work(item)) | 0;
  const expected = Math.imul(once, extra.batches);
  return extra.checksum === expected ? null
    : 'checksum ' + extra.checksum + ' is not that of ' + extra.batches + ' whole batches (' + expected + ')';
}

/* the shared pipeline; `callBack(callback)` is how a worker finishes */
function pipeline(meter, done, callBack) {
  const items = batchItems();
  let checksum = 0;
  function iteratee(item, callback) {
    checksum = (checksum + work(item)) | 0;
    callBack(callback);
  }
  const queue = async.queue(iteratee, LIMIT);

  function viaEachLimit(next) {
    async.eachLimit(items, LIMIT, iteratee, next);
  }
  function viaQueue(next) {
    queue.push(items);
    queue.drain(next);
  }

  let round = 0;
  function nextBatch(err) {
    if (err) throw err;
    if (round > 0 && meter.count(BATCH)) {
      const m = meter.result;
      return done({ itemsPerCpuSecond: m.units / m.cpuSeconds },
        { itemsPerSecond: m.units / m.wallSeconds, checksum, batches: round });
    }
    // one event-loop turn between batches, as between two requests; the batch's own
    // deferrals are the library's and the worker's
    const run = round++ % 2 === 0 ? viaEachLimit : viaQueue;
    setImmediate(run, nextBatch);
  }
  nextBatch();
}
