/**
 * Cpu: how much CPU it costs to keep N timers ticking, the seed study's Cpu table.
 *
 *   loops-N   N concurrent loops, each a 1 ms setTimeout whose callback re-queues itself
 *
 * Value: CPU% = process.cpuUsage() (user + system) / wall time * 100, measured over a fixed
 * wall-clock window (2 s, 0.5 s with --quick) after a warm-up (8 s with 1 or 10 loops, 2 s
 * with more; 0.5 s with --quick).  Lower is better.  Also reports how many callbacks ran per
 * wall second, since a slower implementation may use less CPU only by falling behind.
 */

'use strict';

const harness = require('../harness');

// Steady state is what an application runs in, and both implementations are JavaScript that
// V8 compiles on background threads that process.cpuUsage() counts.  With one or ten loops
// there are about 900 wakeups a second, and the small functions that run once per wakeup are
// only optimized after several thousand of them (--trace-opt shows the last ones, of either
// implementation, after 6000 wakeups, about 7 s): a shorter warm-up bills those compiles to
// the window, which at 5% CPU is a visible share of it.  With 100 loops and more, each wakeup
// runs a hundred callbacks or more and the per-callback code is hot within a second.
const WARMUP_MS_FEW = 8000;
const WARMUP_MS_MANY = 2000;
const QUICK_WARMUP_MS = 500;

function timeoutLoops( count ) {
    return function run( opts, done ) {
        const windowMs = opts.quick ? 500 : 2000;
        // the window is read from the loops' own callbacks, once per round of `count`
        const meter = harness.fixedWindow(count, opts.quick ? QUICK_WARMUP_MS : count <= 10 ? WARMUP_MS_FEW : WARMUP_MS_MANY, windowMs, function(m) {
            const cpuPercent = 100 * m.cpuSeconds / m.wallSeconds;
            const callbackRate = m.callbacks / m.wallSeconds;
            console.log('cpu %s%% over %s s wall, %s callbacks/s (ideal %d)',
                cpuPercent.toFixed(2), m.wallSeconds.toFixed(3), callbackRate.toFixed(0), count * 1000);
            done({ value: cpuPercent, seconds: m.wallSeconds, callbackRate: callbackRate });
        });

        // the loops run until done() exits the process
        function loop() {
            meter.tick();
            setTimeout(loop, 1);
        }
        for (let i = 0; i < count; i++) setTimeout(loop, 1);
    };
}

function cpuRow( count ) {
    return {
        group: 'Cpu', label: count + ' concurrent self-requeueing 1 ms setTimeouts', unit: 'CPU %', better: 'lower',
        // without V8's one-off memory-reducer GCs, in both modes (harness.js says why)
        nodeArgs: harness.STEADY_STATE_NODE_ARGS,
        run: timeoutLoops(count),
    };
}

module.exports = {
    'loops-1': cpuRow(1),
    'loops-10': cpuRow(10),
    'loops-100': cpuRow(100),
    'loops-1000': cpuRow(1000),
    'loops-10000': cpuRow(10000),
};

if (require.main === module) harness.main(module.exports);
