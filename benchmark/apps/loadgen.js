/*
 * apps/loadgen: the HTTP workload's load generator, autocannon's programmatic API, in a process
 * of its own that the measured server starts (always without qtimers: it is the same client for
 * both modes).
 *
 * Runs a warm-up, tells the server (IPC) that the window opens, runs the measured load, and
 * sends its figures before it exits: autocannon's request rate, and the p99 of the response
 * times autocannon reports for each response (fractional milliseconds, from hrtime), since its
 * own latency histogram keeps whole milliseconds, which made a round's p99 ratio a step of
 * 5/6, 6/7 or 7/8 whenever the two builds' p99 differed at all.  Load goes to 127.0.0.1 only,
 * for a fixed duration, so it stops by itself.
 * It must never outlive its server: it exits when the IPC channel closes, and after its own
 * deadline whatever happens.
 *
 *     node loadgen.js PORT CONNECTIONS WARMUP_MS WINDOW_MS
 */
'use strict';

const autocannon = require('autocannon');

const [port, connections, warmupMs, windowMs] = process.argv.slice(2).map(Number);

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

/* the nearest-rank percentile `p` (0-100) of `values`, sorted in place */
function percentile(values, p) {
  if (values.length === 0) return NaN;
  values.sort((a, b) => a - b);
  return values[Math.max(0, Math.ceil(values.length * p / 100) - 1)];
}

async function main() {
  if (warmupMs > 0) await load(warmupMs);
  process.send({ phase: 'open' });
  const measured = load(windowMs);
  const responseMs = [];
  measured.on('response', (client, statusCode, bytes, ms) => responseMs.push(ms));
  const result = await measured;
  process.send({
    phase: 'close',
    requestsPerSecond: result.requests.total / result.duration,
    p99Ms: percentile(responseMs, 99),
    errors: result.errors + result.timeouts + result.non2xx,
  }, () => process.exit(0));
}

module.exports = { percentile };

if (require.main === module) {
  // the watchdog: the two runs and a margin, then out, server or not
  setTimeout(() => {
    process.stderr.write('loadgen: watchdog expired\n');
    process.exit(3);
  }, warmupMs + windowMs + 15000).unref();
  process.on('disconnect', () => process.exit(4));
  main().catch((err) => {
    process.stderr.write('loadgen: ' + (err && err.stack || err) + '\n');
    process.exit(1);
  });
}
