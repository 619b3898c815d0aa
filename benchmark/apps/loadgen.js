/*
 * apps/loadgen: the HTTP workload's load generator, autocannon's programmatic API, in a process
 * of its own that the measured server starts (always without qtimers: it is the same client for
 * both modes).
 *
 * Runs a warm-up, tells the server (IPC) that the window opens, runs the measured load, and
 * sends autocannon's figures for it before it exits.  Load goes to 127.0.0.1 only, for a fixed
 * duration, so it stops by itself.
 * It must never outlive its server: it exits when the IPC channel closes, and after its own
 * deadline whatever happens.
 *
 *     node loadgen.js PORT CONNECTIONS WARMUP_MS WINDOW_MS
 */
'use strict';

const autocannon = require('autocannon');

const [port, connections, warmupMs, windowMs] = process.argv.slice(2).map(Number);

// the watchdog: the two runs and a margin, then out, server or not
setTimeout(() => {
  process.stderr.write('loadgen: watchdog expired\n');
  process.exit(3);
}, warmupMs + windowMs + 15000).unref();
process.on('disconnect', () => process.exit(4));

function load(durationMs) {
  return autocannon({
    url: 'http://127.0.0.1:' + port + '/api/items',
    connections,
    pipelining: 1,
    duration: durationMs / 1000,
    // a request that takes longer than this is an error, not a latency
    timeout: 10,
  });
}

async function main() {
  if (warmupMs > 0) await load(warmupMs);
  process.send({ phase: 'open' });
  const result = await load(windowMs);
  process.send({
    phase: 'close',
    requestsPerSecond: result.requests.total / result.duration,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  }, () => process.exit(0));
}

main().catch((err) => {
  process.stderr.write('loadgen: ' + (err && err.stack || err) + '\n');
  process.exit(1);
});
