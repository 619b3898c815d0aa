/*
 * async-immediate: async.js's pipelines of async.js (eachLimit and queue, async.js file's
 * `pipeline`) whose synchronous workers call back through setImmediate(callback), the usual
 * way to keep a synchronous worker from growing the stack or releasing Zalgo.
 * Figure: items per CPU-second (see job-queue.js for why CPU-seconds).
 * It must never differ from async.js except in how a worker calls back.
 */
'use strict';

const { pipeline, check } = require('./async');

module.exports = {
  title: 'async.js, workers call back via setImmediate',
  describe: 'the same pipelines, each worker ending with setImmediate(callback)',
  metrics: [
    { key: 'itemsPerCpuSecond', label: 'items per CPU-second', unit: 'items/cpu-s', better: 'higher' },
  ],
  sizes: require('./async').sizes,
  run(size, meter, done) {
    pipeline(meter, done, function callBackLater(callback) { setImmediate(callback); });
  },
  check,
};
