/**
 * Cpu: how much CPU it costs to keep N timers ticking, the seed study's Cpu table.
 *
 *   loops-N   N concurrent loops, each a 1 ms setTimeout whose callback re-queues itself
 *
 * Value: CPU% = process.cpuUsage() (user + system) / wall time * 100, measured over a fixed
 * wall-clock window (2 s, 0.5 s with --quick) after a warm-up (1 s, 0.2 s).  Lower is better.
 * Also reports how many callbacks ran per wall second, since a slower implementation may
 * use less CPU only by falling behind.
 */

'use strict';

var harness = require('../harness');

// Long enough for V8 to have compiled the hot paths of either implementation: compiling happens
// on background threads that process.cpuUsage() counts, and with one loop (1000 callbacks/s) a
// short warm-up leaves the compile inside the window.  Steady state is what an app runs in.
var WARMUP_MS = 1000;
var QUICK_WARMUP_MS = 200;

function timeoutLoops( count ) {
    return function run( opts, done ) {
        var windowMs = opts.quick ? 500 : 2000;
        var callbacks = 0;

        // the loops run until the harness exits the process after the window
        function loop() {
            callbacks += 1;
            setTimeout(loop, 1);
        }
        for (var i = 0; i < count; i++) setTimeout(loop, 1);

        setTimeout(function startWindow() {
            var wall0 = process.hrtime.bigint();
            var cpu0 = process.cpuUsage();
            var callbacks0 = callbacks;
            setTimeout(function endWindow() {
                var cpu = process.cpuUsage(cpu0);
                var wallSeconds = Number(process.hrtime.bigint() - wall0) / 1e9;
                var cpuSeconds = (cpu.user + cpu.system) / 1e6;
                var cpuPercent = 100 * cpuSeconds / wallSeconds;
                var callbackRate = (callbacks - callbacks0) / wallSeconds;
                console.log('cpu %s%% over %s s wall, %s callbacks/s (ideal %d)',
                    cpuPercent.toFixed(2), wallSeconds.toFixed(3), callbackRate.toFixed(0), count * 1000);
                done({ value: cpuPercent, seconds: wallSeconds, callbackRate: callbackRate });
            }, windowMs);
        }, opts.quick ? QUICK_WARMUP_MS : WARMUP_MS);
    };
}

function cpuRow( count ) {
    return {
        group: 'Cpu', label: count + ' concurrent self-requeueing 1 ms setTimeouts', unit: 'CPU %', better: 'lower',
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
