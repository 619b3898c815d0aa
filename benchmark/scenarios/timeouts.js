/**
 * Timeouts: timers that mostly wait, so the rates are per second of CPU, not of wall time
 * (a batch of 100 ms timeouts takes 100 ms of wall time however fast the library is).
 *
 *   delays-100   create 100k setTimeouts with 100 distinct delays (1..100 ms, 1000 of each,
 *                interleaved) and wait for all of them to run
 *   interval-1ms 1000 concurrent setInterval(fn, 1) running for 2 s (0.5 s with --quick)
 *
 * Rate: callbacks run per CPU second (process.cpuUsage user + system).
 */

'use strict';

var harness = require('../harness');

var DELAYS = 100;
var BATCH = 100 * 1000;

function distinctDelays( opts, done ) {
    harness.measureRate(opts, BATCH, 2, function(cb) {
        var left = BATCH;
        function fired() { if (--left === 0) cb() }
        for (var i = 0; i < BATCH; i++) setTimeout(fired, 1 + i % DELAYS);
    }, done, harness.cpuSeconds);
}

function intervals( opts, done ) {
    var count = 1000;
    var windowMs = opts.quick ? 500 : 2000;
    var handles = [], firings = 0;
    function tick() { firings += 1 }

    var cpu0 = harness.cpuSeconds();
    var wall0 = process.hrtime.bigint();
    for (var i = 0; i < count; i++) handles.push(setInterval(tick, 1));
    setTimeout(function stop() {
        var cpuSeconds = harness.cpuSeconds() - cpu0;
        var wallSeconds = Number(process.hrtime.bigint() - wall0) / 1e9;
        handles.forEach(clearInterval);
        var rate = firings / cpuSeconds;
        console.log('%d firings in %s s wall (%s/s, ideal %d/s), %s CPU s: %s firings per CPU second',
            firings, wallSeconds.toFixed(3), (firings / wallSeconds).toFixed(0), count * 1000,
            cpuSeconds.toFixed(3), rate.toFixed(0));
        done({ value: rate, seconds: wallSeconds, callbackRate: firings / wallSeconds });
    }, windowMs);
}

module.exports = {
    'delays-100': {
        group: 'Timeouts', label: 'create+run 100k setTimeout, 100 distinct delays 1..100 ms',
        unit: 'calls/cpu-s', better: 'higher', run: distinctDelays,
    },
    'interval-1ms': {
        group: 'Timeouts', label: '1000 concurrent setInterval(fn, 1)',
        unit: 'calls/cpu-s', better: 'higher', run: intervals,
    },
};

if (require.main === module) harness.main(module.exports);
