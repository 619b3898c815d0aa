/**
 * Child-process side of `npm run bench` (the micro suite): runs one named scenario of a family file
 * and prints its result as a machine-readable line for run.js to parse:
 *
 *     RESULT {"value": 1234567.8, ...}
 *
 * A family file (benchmark/micro/scenarios/*.js) exports a table of scenarios and ends with
 *     if (require.main === module) harness.main(module.exports);
 * so run.js can read the table without running anything.  Invoked as
 *     node [-r qtimers] scenarios/FAMILY.js NAME [--quick] [--als] [--depth N]
 *
 * Each scenario is { group, label, unit, better: 'higher'|'lower', nodeArgs?, run(opts, done) }
 * and calls done({ value: number, ...extra facts to print }) exactly once.
 */

'use strict';

const AsyncLocalStorage = require('async_hooks').AsyncLocalStorage;
const aflow = require('aflow');
const runit = require('./runit');

// Node options for the fixedWindow rows, native and qtimers alike.  V8's memory reducer runs a
// few full garbage collections once, some seconds after start-up or after the heap (or code
// space, when the last functions get optimized) grew, when the program allocates little:
// exactly the situation of a few timer loops.  Where those ~10 ms of GC land (in the 2 s window
// or not) differs by run and by implementation, and at 5% CPU it is a tenth of the window.  It
// is a one-off, not the steady state, so both modes run without it.
// (Defined before the exports below: they run first and read it.)
const STEADY_STATE_NODE_ARGS = ['--no-memory-reducer'];

module.exports.main = main;
module.exports.measureRate = measureRate;
module.exports.fixedWindow = fixedWindow;
module.exports.STEADY_STATE_NODE_ARGS = STEADY_STATE_NODE_ARGS;
module.exports.cpuSeconds = cpuSeconds;
module.exports.makeRandom = makeRandom;
module.exports.noop = noop;

function noop( ) {}

function parseArgs( argv ) {
    const opts = { name: undefined, quick: false, als: false, depth: undefined };
    for (let i = 0; i < argv.length; i++) {
        if (argv[i] === '--quick') opts.quick = true;
        else if (argv[i] === '--als') opts.als = true;
        else if (argv[i] === '--depth') opts.depth = Number(argv[++i]);
        else if (opts.name === undefined) opts.name = argv[i];
        else throw new Error(argv[i] + ': unexpected argument');
    }
    return opts;
}

function main( scenarios ) {
    const opts = parseArgs(process.argv.slice(2));
    const scenario = scenarios[opts.name];
    if (!scenario) {
        console.error('usage: node %s NAME [--quick] [--als] [--depth N]\n  names: %s',
            process.argv[1], Object.keys(scenarios).join(' '));
        process.exit(2);
    }

    // run.js only passes --depth in qtimers mode; on the native setImmediate it would be an inert property
    if (opts.depth !== undefined) setImmediate.maxTickDepth = opts.depth;

    const als = opts.als ? new AsyncLocalStorage() : null;
    const store = { request: 1 };

    function done( result ) {
        // done() is reached through the scenario's timer callbacks, so the store must have survived them
        if (als && als.getStore() !== store) {
            console.log('WARNING: the AsyncLocalStorage store was lost in timer callbacks');
            result.alsStoreLost = true;
        }
        console.log('RESULT %s', JSON.stringify(result));
        // long (30 s) timeouts may still be pending; the measurement is over
        process.exit(0);
    }

    console.log('%s: %s', scenario.group, scenario.label);
    if (als) {
        // every callback scheduled from inside run() must carry (and restore) this store
        als.run(store, function() { scenario.run(opts, done) });
    }
    else {
        scenario.run(opts, done);
    }
}

/*
 * Time f with runit and report its average item rate.  `runs` is the number of f(cb)
 * calls per repeat in a full run, each call handling `items` items; --quick times
 * fewer, shorter repeats.  One untimed repeat runs first: both implementations are
 * JavaScript that V8 compiles as it gets hot, and what an application lives with is the
 * compiled steady state, not the first few milliseconds of interpreted code.
 */
function measureRate( opts, items, runs, f, done, clock ) {
    const repeats = opts.quick ? 2 : 5;
    const nruns = opts.quick ? Math.max(2, Math.ceil(runs / 4)) : runs;
    let warmups = nruns;
    aflow.repeatWhile(
        function() { return warmups-- > 0 },
        function(next) { f(function() { next() }) },
        function() {
            runit(repeats, nruns, items, '  timing ' + repeats + ' x ' + nruns + ' runs of ' + items + ' items', f, function(rates) {
                done({ value: rates.avg, min: rates.min, max: rates.max });
            }, clock);
        }
    );
}

/*
 * A fixed wall-clock window over a steady stream of callbacks (the Cpu loops, setInterval).
 * The stream's own callbacks call meter.tick() once per callback, and once per round of
 * `perRound` callbacks it reads the clock: no timer is made for measuring, because one
 * would take code paths the stream never took (a new delay, a second list), and V8 would
 * de-optimize and recompile the library's hot functions inside the window.  For the same
 * reason the window is not opened once: windows of `windowMs` follow each other from the
 * start, each measured the same way, and the first that opens at or after `warmupMs` is
 * the one reported (the code that opens and closes a window, inlined into the hot drain
 * as the callback is, has run several times by then, so it de-optimizes nothing).
 * onEnd({ cpuSeconds, wallSeconds, callbacks }) runs from inside the stream's callback.
 */
function fixedWindow( perRound, warmupMs, windowMs, onEnd ) {
    const reportIndex = Math.ceil(warmupMs / windowMs);
    let index = 0, callbacks = 0, left = perRound;
    let wall0 = process.hrtime.bigint(), cpu0 = process.cpuUsage(), callbacks0 = 0;
    return {
        tick: function tick( ) {
            callbacks += 1;
            if (--left > 0) return;
            left = perRound;
            const wall = process.hrtime.bigint();
            if (Number(wall - wall0) < windowMs * 1e6) return;
            const cpu = process.cpuUsage(cpu0);
            const m = {
                cpuSeconds: (cpu.user + cpu.system) / 1e6,
                wallSeconds: Number(wall - wall0) / 1e9,
                callbacks: callbacks - callbacks0,
            };
            if (index++ === reportIndex) return onEnd(m);
            wall0 = process.hrtime.bigint();
            cpu0 = process.cpuUsage();
            callbacks0 = callbacks;
        },
    };
}

// process CPU (user + system) seconds, a clock for runit() where wall time would mostly measure waiting
function cpuSeconds( ) {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1e6;
}

// small seeded PRNG (xorshift32) so that both modes touch exactly the same sequence of timers
function makeRandom( seed ) {
    let x = seed | 0 || 1;
    return function randomInt( n ) {
        x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
        return (x >>> 0) % n;
    };
}
