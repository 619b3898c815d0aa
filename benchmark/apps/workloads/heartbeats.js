/*
 * heartbeats: the timers of a WebSocket / socket.io server with many quiet connections.
 *
 * Every simulated connection has, as engine.io gives each socket, a ping timer (a setTimeout
 * re-armed after every ping) and an idle timeout of ping interval + pong timeout, pushed back
 * with refresh() whenever anything arrives on the connection (as a net.Socket's own timeout
 * is).  Connections open at a steady pace over the first ping interval (so pings are spread
 * evenly, as on a server whose clients came and went), then messages arrive at a steady rate
 * for random connections, and every ping is answered by a pong on the next arrival.  One
 * connection in DEAD_EVERY never answers: its idle timeout fires, it is closed (both timers
 * cleared) and a new connection takes its place.  Arrivals come in a burst every millisecond
 * from a 1 ms setInterval, which stands in for the sockets' reads.
 * Figures: CPU per message (all process CPU in the window / messages and pongs received) and
 * the heap after full collections at the end of the window (the process runs with
 * --expose-gc).  The offered rate is fixed, so both modes do the same work.
 * The window opens after 10 s, past the heap's growth from nothing: until then V8
 * schedules its full collections by how much survived the last one, so the mode with the
 * smaller heap (qtimers: 40 MB against 51) met its second one at 5.4-6.6 s, inside a window
 * that opened at 4 s, while native's came at 9.5 s, after it (--trace-gc, Node 20, 4 runs):
 * one mode paid a collection the other put off.  From 10 s to 15 s neither had one (their
 * next came after 22 s), so the window compares the work itself, both modes unburdened.  The
 * quick size met the same: with a 2 s warm-up, qtimers' second full collection fell inside its
 * window (at 2.8 s) and native's after it (4.1 s), and qtimers came out 0.82x; from 10 to 12 s
 * neither had one, and it came out 1.13x (0.96-1.31, 3 quick rounds, Node 20).
 * It must never let the offered rate depend on the mode: arrivals owed are computed from the
 * elapsed time, not counted per callback, so a stall (a GC, a busy neighbour) is made up by
 * the next burst in either mode.
 */
'use strict';

const { settledHeapMB } = require('../child');

const DEAD_EVERY = 1000;

module.exports = {
  title: 'Connection heartbeats',
  describe: 'connections with an idle timeout refreshed per message and a ping timer each (engine.io\'s pattern)',
  nodeArgs: ['--expose-gc'],
  metrics: [
    { key: 'cpuPerMessage', label: 'CPU per message', unit: 'µs', better: 'lower' },
    { key: 'heapMB', label: 'heap at steady state', unit: 'MB', better: 'lower' },
  ],
  sizes: {
    full: { connections: 100000, pingMs: 2000, pongTimeoutMs: 1000, messagesPerSecond: 100000, warmupMs: 10000, windowMs: 5000 },
    quick: { connections: 100000, pingMs: 1000, pongTimeoutMs: 1000, messagesPerSecond: 100000, warmupMs: 10000, windowMs: 2000 },
    smoke: { connections: 5000, pingMs: 100, pongTimeoutMs: 100, messagesPerSecond: 20000, warmupMs: 150, windowMs: 150 },
  },
  run,
};

function Connection(server, id) {
  this.server = server;
  this.id = id;
  this.dead = id % DEAD_EVERY === DEAD_EVERY - 1;
  this.awaitingPong = false;
  this.received = 0;
  this.pingTimer = setTimeout(sendPing, server.pingMs, this);
  this.idleTimer = setTimeout(closeIdle, server.pingMs + server.pongTimeoutMs, this);
}

function sendPing(connection) {
  const server = connection.server;
  server.pings += 1;
  connection.awaitingPong = true;
  if (!connection.dead) server.pongsDue.push(connection);
  connection.pingTimer = setTimeout(sendPing, server.pingMs, connection);
}

function closeIdle(connection) {
  const server = connection.server;
  clearTimeout(connection.pingTimer);
  server.closed += 1;
  server.connections[connection.id] = new Connection(server, connection.id);
}

function receive(connection) {
  connection.received += 1;
  connection.idleTimer.refresh();
}

function run(size, meter, done) {
  const server = {
    pingMs: size.pingMs,
    pongTimeoutMs: size.pongTimeoutMs,
    connections: [],
    pongsDue: [],
    pings: 0,
    closed: 0,
  };
  let seed = 12345;
  function randomIndex(n) {
    seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
    return (seed >>> 0) % n;
  }

  const started = process.hrtime.bigint();
  const perMs = size.messagesPerSecond / 1000;
  const opensPerMs = size.connections / size.pingMs;
  let delivered = 0;
  let messagesFromMs = -1;      // messages start once every connection is open
  // a burst never makes up for more than 20 ms of lateness, so a stall cannot snowball

  const driver = setInterval(function arrivals() {
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    const opened = server.connections.length;
    const toOpen = Math.min(size.connections, Math.floor(opensPerMs * elapsedMs)) - opened;
    for (let i = 0; i < toOpen; i++) server.connections.push(new Connection(server, opened + i));
    const count = server.connections.length;
    if (count < size.connections) return;
    if (messagesFromMs < 0) messagesFromMs = elapsedMs;

    // pongs for the pings sent since the last burst, then the messages owed by now
    const pongs = server.pongsDue;
    server.pongsDue = [];
    for (let i = 0; i < pongs.length; i++) {
      pongs[i].awaitingPong = false;
      receive(pongs[i]);
    }
    // owed by the clock, not by the count of bursts: a late burst makes up for a stall
    const owed = Math.floor(perMs * (elapsedMs - messagesFromMs)) - delivered;
    for (let i = 0; i < owed; i++) {
      const connection = server.connections[randomIndex(count)];
      if (!connection.dead) receive(connection);
    }
    delivered += owed;
    if (meter.count(owed + pongs.length)) {
      clearInterval(driver);
      const m = meter.result;
      done({ cpuPerMessage: 1e6 * m.cpuSeconds / m.units, heapMB: settledHeapMB() },
        { messagesPerSecond: m.units / m.wallSeconds, cpuPercent: 100 * m.cpuSeconds / m.wallSeconds,
          pings: server.pings, closed: server.closed });
    }
  }, 1);
}
