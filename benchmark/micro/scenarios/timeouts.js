/**
 * Timeouts: timers that mostly wait, so the rates are per second of CPU, not of wall time
 * (a batch of 100 ms timeouts takes 100 ms of wall time however fast the library is).
 *
 *   delays-100   create 100k setTimeouts with 100 distinct delays (1..100 ms, 1000 of each,
 *                interleaved) and wait for all of them to run
 *   interval-1ms 1000 concurrent setInterval(fn, 1), measured for 2 s after a 1 s warm-up
 *                (0.5 s after 0.2 s with --quick)
 *
 * Rate: callbacks run per CPU second (process.cpuUsage user + system).
 */

'use strict';

const harness = require('../harness');

const DELAYS = 100;
const BATCH = 100 * 1000;

function distinctDelays( opts, done ) {
    harness.measureRate(opts, BATCH, 2, function(cb) {
        let left = BATCH;
        function fired() { if (--left === 0) cb() }
        for (let i = 0; i < BATCH; i++) setTimeout(fired, 1 + i % DELAYS);
    }, done, harness.cpuSeconds);
}

function intervals( opts, done ) {
    const count = 1000;
    const handles = [];
    // measured from the intervals' own callbacks after a warm-up, as the Cpu loops are
    const meter = harness.fixedWindow(count, opts.quick ? 200 : 1000, opts.quick ? 500 : 2000, function(m) {
        handles.forEach(clearInterval);
        const rate = m.callbacks / m.cpuSeconds;
        console.log('%d firings in %s s wall (%s/s, ideal %d/s), %s CPU s: %s firings per CPU second',
            m.callbacks, m.wallSeconds.toFixed(3), (m.callbacks / m.wallSeconds).toFixed(0), count * 1000,
            m.cpuSeconds.toFixed(3), rate.toFixed(0));
        done({ value: rate, seconds: m.wallSeconds, callbackRate: m.callbacks / m.wallSeconds });
    });
    function tick() { meter.tick() }
    for (let i = 0; i < count; i++) handles.push(setInterval(tick, 1));
}

module.exports = {
    'delays-100': {
        group: 'Timeouts', label: 'create+run 100k setTimeout, 100 distinct delays 1..100 ms',
        unit: 'calls/cpu-s', better: 'higher', run: distinctDelays,
    },
    'interval-1ms': {
        group: 'Timeouts', label: '1000 concurrent setInterval(fn, 1)',
        unit: 'calls/cpu-s', better: 'higher', run: intervals,
        nodeArgs: harness.STEADY_STATE_NODE_ARGS,
    },
};

if (require.main === module) harness.main(module.exports);
