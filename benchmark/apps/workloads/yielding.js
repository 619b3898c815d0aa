/*
 * yielding: a CPU-bound loop that keeps its process responsive by yielding to the event loop
 * with `await setImmediate()` from timers/promises every N iterations, as a server does when
 * it walks a large array, parses a big document or recomputes an index between requests.
 *
 * Each iteration is a small, fixed piece of work (an FNV-1a hash step over one word of a
 * preset array); the loop yields every `yieldEvery` iterations.  Figure: iterations per
 * CPU-second (the window's process CPU, user + system), the loop running flat out (see
 * job-queue.js for why CPU-seconds).
 * It must never skip a yield or do less work in one mode: check() recomputes the checksum from
 * the iterations counted, and a run whose checksum differs fails.
 */
'use strict';

const { setImmediate: yieldTurn } = require('timers/promises');

const WORDS = 1024;

module.exports = {
  title: 'Cooperative yielding',
  describe: 'a CPU-bound loop, `await setImmediate()` (timers/promises) every 100 iterations of a small hash step',
  metrics: [
    { key: 'iterationsPerCpuSecond', label: 'iterations per CPU-second', unit: 'iter/cpu-s', better: 'higher' },
  ],
  sizes: {
    full: { warmupMs: 1500, windowMs: 4000, yieldEvery: 100 },
    quick: { warmupMs: 500, windowMs: 1500, yieldEvery: 100 },
    smoke: { warmupMs: 50, windowMs: 150, yieldEvery: 100 },
  },
  run,
  check,
};

function presetWords() {
  const words = new Uint32Array(WORDS);
  for (let i = 0; i < WORDS; i++) words[i] = (i * 2654435761) >>> 0;
  return words;
}

/* `count` hash steps over the preset words, from the start */
function hashSteps(words, count) {
  let hash = 2166136261;
  for (let i = 0; i < count; i++) hash = Math.imul(hash ^ words[i & (WORDS - 1)], 16777619) >>> 0;
  return hash;
}

/* null if the checksum is that of exactly the iterations run (the warm-up's too) */
function check(extra) {
  const expected = hashSteps(presetWords(), extra.iterations);
  return extra.checksum === expected ? null
    : 'checksum ' + extra.checksum + ' is not that of ' + extra.iterations + ' iterations (' + expected + ')';
}

function run(size, meter, done) {
  const words = presetWords();
  // timers/promises is read at call time: with qtimers installed it is qtimers' own
  loop(words, size.yieldEvery, meter).then((hash) => {
    const m = meter.result;
    done({ iterationsPerCpuSecond: m.units / m.cpuSeconds },
      { iterationsPerSecond: m.units / m.wallSeconds, checksum: hash, iterations: meter.units });
  });
}

async function loop(words, yieldEvery, meter) {
  let hash = 2166136261;
  let index = 0;
  for (;;) {
    for (let i = 0; i < yieldEvery; i++) {
      hash = Math.imul(hash ^ words[index], 16777619) >>> 0;
      index = (index + 1) & (WORDS - 1);
    }
    if (meter.count(yieldEvery)) return hash;
    await yieldTurn();
  }
}
