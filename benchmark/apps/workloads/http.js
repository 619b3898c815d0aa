/*
 * http: a JSON service on node:http with the two timers a production server keeps: a deadline
 * per request (setTimeout when the request arrives, clearTimeout when the response is sent)
 * and an idle timer per keep-alive connection (pushed back with refresh() on every request).
 *
 * The load comes from autocannon (loadgen.js, a process of its own, the same in both modes)
 * over 127.0.0.1 with many keep-alive connections, flat out, for a fixed time.  The window is
 * the load generator's measured run, opened and closed by its messages.
 * Figures: requests per second and p99 latency as autocannon saw them, and the server's CPU
 * per request (the window's process CPU / responses the server finished in it).
 * It must never let a request outlive the run: the generator stops by itself and is killed
 * with its server.
 */
'use strict';

const http = require('http');
const path = require('path');
const childProcess = require('child_process');

const DEADLINE_MS = 10000;
const IDLE_MS = 60000;
const BODY = JSON.stringify({ items: [{ id: 1, name: 'alpha' }, { id: 2, name: 'beta' }], ok: true });

module.exports = {
  title: 'HTTP service',
  describe: 'node:http, a deadline timer per request and an idle timer per keep-alive connection; autocannon, 100 connections',
  metrics: [
    { key: 'requestsPerSecond', label: 'requests/s', unit: 'req/s', better: 'higher' },
    { key: 'cpuPerRequest', label: 'server CPU per request', unit: 'µs', better: 'lower' },
    { key: 'p99Ms', label: 'p99 latency', unit: 'ms', better: 'lower' },
  ],
  // not with bench:apps --paired: autocannon in this process and the server in its own already
  // keep two cores busy, and requests/s and p99 are wall-clock figures
  sideBySide: false,
  sizes: {
    full: { connections: 100, warmupMs: 2000, windowMs: 5000 },
    quick: { connections: 100, warmupMs: 1000, windowMs: 2000 },
    smoke: { connections: 10, warmupMs: 0, windowMs: 300 },
  },
  run,
};

function onDeadline(res) {
  res.statusCode = 503;
  res.end();
}

function clearDeadline() {
  clearTimeout(this.deadline);
}

function closeIdle(socket) {
  socket.destroy();
}

function clearIdle() {
  clearTimeout(this.idleTimer);
}

function run(size, meter, done) {
  const server = http.createServer(function onRequest(req, res) {
    req.socket.idleTimer.refresh();
    res.deadline = setTimeout(onDeadline, DEADLINE_MS, res);
    res.once('finish', clearDeadline);
    meter.add(1);
    res.setHeader('content-type', 'application/json');
    res.end(BODY);
  });
  server.on('connection', function onConnection(socket) {
    socket.idleTimer = setTimeout(closeIdle, IDLE_MS, socket);
    socket.once('close', clearIdle);
  });

  server.listen(0, '127.0.0.1', function onListening() {
    const loadgen = childProcess.spawn(process.execPath,
      [path.join(__dirname, '..', 'loadgen.js'), server.address().port, size.connections, size.warmupMs, size.windowMs],
      { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    loadgen.on('message', function onMessage(message) {
      if (message.phase === 'open') meter.open();
      if (message.phase !== 'close') return;
      meter.close();
      const m = meter.result;
      if (message.errors > 0) throw new Error('http: ' + message.errors + ' requests failed');
      done({ requestsPerSecond: message.requestsPerSecond, cpuPerRequest: 1e6 * m.cpuSeconds / m.units, p99Ms: message.p99Ms },
        { serverRequestsPerSecond: m.units / m.wallSeconds, cpuPercent: 100 * m.cpuSeconds / m.wallSeconds });
    });
    loadgen.on('exit', function onExit(code, signal) {
      if (!meter.closed) throw new Error('http: load generator exited early (' + (signal || code) + ')');
    });
  });
}
