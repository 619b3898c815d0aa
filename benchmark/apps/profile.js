/*
 * apps/profile: the share of a workload's CPU that Node's own timers take, from a V8 CPU
 * profile (`node --cpu-prof`) of the workload run natively.
 *
 * Owns the definition, which the results table states in its footer:
 *   Only samples taken inside the measurement window count (the child reports the window on
 *   the profile's own clock), and of those only busy ones: '(idle)' samples are left out (Node
 *   labels idle the event loop's time between its prepare and check phases outside callbacks:
 *   polling for I/O, whether it sleeps or not).  Samples are counted, not weighed.  A
 *   sample is the timers' when the function it caught running is Node-internal or native code
 *   (a 'node:' url, or none: V8 builtins and C++ bindings such as the clock read) and, walking
 *   up its stack through such frames only, a frame of Node's timers modules is reached
 *   (node:timers, node:timers/promises, node:internal/timers, node:internal/timers/...) before
 *   any frame of the application or of a library.  So the share counts the timer calls, their
 *   bookkeeping (lists, the clock, async hooks, handle objects), and the loop that runs due
 *   timers and drains ticks and microtasks between their callbacks, and stops at the
 *   callbacks themselves; '(garbage collector)' and '(program)' samples count in the total but
 *   never as the timers', and neither does libuv's C++ timer heap, which V8 cannot see.
 * It must never look at a profile of a qtimers run for this figure: the question it answers
 * is how much there is to gain, which is what native timers cost.
 */
'use strict';

const fs = require('fs');
const path = require('path');

const TIMERS_URL = /^node:(internal\/)?timers(\/|$)/;

// The profile run's sampling interval, µs (--cpu-prof-interval).  V8's default of 1000 locks in
// phase with work that a 1 ms timer wakes, as heartbeats' and the TTL cache's arrivals are: the
// sampler and the timer wake together, so nearly every sample lands while the loop still
// sleeps.  Measured (Node 20): a 1 ms setInterval busy for 300 µs a turn was seen busy in 0.6%
// of 3649 samples at 1000 µs and 28% of 18668 at 97; heartbeats had 42 busy samples in its
// 5 s window at 1000 µs and 2854 at 97.  97 is prime, so no whole number of samples spans a
// millisecond; the profiler's own cost at this rate does not matter for a share.
const SAMPLING_INTERVAL_US = 97;

// V8's pseudo-frames: never the timers', and '(idle)' not even busy
const PSEUDO = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);

function isNodeOrNative(callFrame) {
  return callFrame.url === '' || callFrame.url.startsWith('node:');
}

/*
 * timerShare(profile, windowUs) => { share, timerSamples, busySamples, idleSamples }
 * profile: a parsed .cpuprofile; windowUs: [start, end] on the profile's clock, or null for
 * the whole profile.
 */
function timerShare(profile, windowUs) {
  const byId = new Map();
  for (const node of profile.nodes) byId.set(node.id, { node, parent: null, timers: undefined });
  for (const node of profile.nodes) {
    for (const childId of node.children || []) byId.get(childId).parent = byId.get(node.id);
  }

  // whether a sample caught in this node is the timers': memoized per node
  function isTimers(entry) {
    if (entry.timers !== undefined) return entry.timers;
    const frame = entry.node.callFrame;
    let result;
    if (PSEUDO.has(frame.functionName) && frame.url === '') result = false;
    else if (!isNodeOrNative(frame)) result = false;
    else if (TIMERS_URL.test(frame.url)) result = true;
    else result = entry.parent !== null && isTimers(entry.parent);
    entry.timers = result;
    return result;
  }

  // Samples are counted, not weighed by the time between them: Node keeps the profiler's
  // signal blocked while the loop sleeps, so a long gap is sleep, billed to no sample.
  const samples = profile.samples;
  const deltas = profile.timeDeltas;
  let time = profile.startTime;
  let timerSamples = 0;
  let busySamples = 0;
  let idleSamples = 0;
  for (let i = 0; i < samples.length; i++) {
    time += deltas[i];
    if (windowUs && (time < windowUs[0] || time > windowUs[1])) continue;
    const entry = byId.get(samples[i]);
    if (entry.node.callFrame.functionName === '(idle)') {
      idleSamples += 1;
      continue;
    }
    busySamples += 1;
    if (isTimers(entry)) timerSamples += 1;
  }
  return { share: busySamples > 0 ? timerSamples / busySamples : undefined, timerSamples, busySamples, idleSamples };
}

/* the one .cpuprofile in dir, parsed */
function readProfile(dir) {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length !== 1) throw new Error(dir + ': expected one .cpuprofile, found ' + files.length);
  return JSON.parse(fs.readFileSync(path.join(dir, files[0]), 'utf8'));
}

module.exports = { timerShare, readProfile, TIMERS_URL, SAMPLING_INTERVAL_US };
