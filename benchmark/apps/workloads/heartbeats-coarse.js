/*
 * heartbeats-coarse: the heartbeats workload (heartbeats.js) with qtimers' coarse mode on
 * (QTIMERS_COARSE=1, benchmark/coarse/apps-variant.js): its pings and idle timeouts, of a second
 * or more at every size, are coarse; the 1 ms arrivals interval stays exact.  The smoke size
 * keeps them at 1 s and more.
 */
'use strict';

const { variant } = require('../../coarse/apps-variant');

module.exports = variant(require('./heartbeats'), (size) => size.pingMs,
  { connections: 5000, pingMs: 1000, pongTimeoutMs: 1000, messagesPerSecond: 20000, warmupMs: 1100, windowMs: 300 });
