/**
 * The floor: how fast can any JavaScript timers library be while it keeps Node's rule that the
 * nextTick and microtask queues are drained between two callbacks?
 *
 * Runs five rows of the main table (run.js: the same scenario files, children and speedup
 * arithmetic) natively, with qtimers, and with `floor`, a bare implementation (below,
 * preloaded by floor-install.js as qtimers is by index.js) that keeps only what no drop-in
 * library can drop: a new handle object per call, the callback check, first-in first-out
 * order, one native driver timer, process._tickCallback between callbacks, and for
 * refresh() an unlink and a re-append that keep the list in expiry order.  It has no
 * unref or clear, no arguments, no async context, no error safety, no second delay, no
 * interval: it is not a timers library, it is the lower bound on the cost of one.  A target
 * above the floor's own speedup cannot be met by making qtimers leaner, only by breaking the
 * rule.
 *
 *     node benchmark/floor.js [--rounds N] [--node PATH]
 *
 * The three modes alternate within each round; medians over rounds are printed with the
 * speedups over native in the same rounds.
 */

'use strict';

var run = require('./run');
var chart = require('./chart');

// the main table's rows measured against the floor (ids of benchmark/scenarios/*)
var ROWS = /^(primitives\/immediate-batch-0|primitives\/timeout-batch-0|cpu\/loops-1000|server\/refresh-10k|server\/refresh-100k)$/;
var MODES = ['native', 'qtimers', 'floor'];

if (require.main === module) main(process.argv.slice(2));

// ---------------------------------------------------------------- the floor implementation

function makeFloor( tickDrain ) {
    var nativeSetImmediate = setImmediate;
    var nativeSetTimeout = setTimeout;
    var tick = tickDrain ? process._tickCallback : function() {};
    var hrtime = process.hrtime.bigint;
    var NS_PER_MS = BigInt(1e6);

    function Immediate( callback ) {
        this._onImmediate = callback;
        this._destroyed = false;
    }
    var ring = new Array(16384).fill(undefined);
    var head = 0, tail = 0, length = 0;
    var immediateDriver = null;

    function floorSetImmediate( callback ) {
        if (typeof callback !== 'function') throw new TypeError('callback must be a function');
        var imm = new Immediate(callback);
        ring[tail] = imm;
        tail = (tail + 1) & 16383;
        length += 1;
        if (immediateDriver === null) immediateDriver = nativeSetImmediate(runImmediates);
        return imm;
    }

    function runImmediates( ) {
        immediateDriver = null;
        var owed = false;
        while (length > 0) {
            if (owed) tick();
            var imm = ring[head];
            ring[head] = undefined;
            head = (head + 1) & 16383;
            length -= 1;
            imm._destroyed = true;
            imm._onImmediate();
            imm._onImmediate = null;
            owed = true;
        }
    }

    // one delay only: a circular list in start order, as qtimers keeps each delay's timers
    function Timeout( callback, after ) {
        this._onTimeout = callback;
        this._idleTimeout = after;
        this._idlePrev = null;
        this._idleNext = null;
        this._idleStart = 0;
        this._destroyed = false;
    }
    var list = { _idlePrev: null, _idleNext: null };
    list._idlePrev = list;
    list._idleNext = list;
    var now = -1;               // the section's timestamp, read once per section or drain
    var draining = false;
    var timeoutDriver = null;
    function forgetNow( ) { now = -1; }

    function floorSetTimeout( callback, after ) {
        if (typeof callback !== 'function') throw new TypeError('callback must be a function');
        var timer = new Timeout(callback, after);
        start(timer);
        if (timeoutDriver === null && !draining) timeoutDriver = nativeSetTimeout(runTimeouts, after);
        return timer;
    }

    // refresh(): the least any implementation must do to keep the list in expiry order (take
    // the timer out, stamp it with the section's time, put it behind the others), and no more
    // (no cleared or fired check, no driver re-arm: the server rows' timers are all pending).
    Timeout.prototype.refresh = function refresh( ) {
        var prev = this._idlePrev, next = this._idleNext;
        prev._idleNext = next;
        next._idlePrev = prev;
        start(this);
        return this;
    };

    /* stamp `timer` with the section's timestamp and link it at the tail */
    function start( timer ) {
        if (now < 0) {
            now = Number(hrtime() / NS_PER_MS);
            if (!draining) queueMicrotask(forgetNow);
        }
        timer._idleStart = now;
        var last = list._idlePrev;
        timer._idlePrev = last;
        timer._idleNext = list;
        last._idleNext = timer;
        list._idlePrev = timer;
    }

    function runTimeouts( ) {
        timeoutDriver = null;
        draining = true;
        var t = now = Number(hrtime() / NS_PER_MS);
        var owed = false;
        for (;;) {
            var timer = list._idleNext;
            if (timer === list || timer._idleStart + timer._idleTimeout > t || timer._idleStart >= t) break;
            if (owed) {
                owed = false;
                tick();
                continue;
            }
            var prev = timer._idlePrev, next = timer._idleNext;
            prev._idleNext = next;
            next._idlePrev = prev;
            timer._idlePrev = null;
            timer._idleNext = null;
            timer._destroyed = true;
            timer._onTimeout();
            timer._onTimeout = null;
            owed = true;
        }
        draining = false;
        now = -1;
        var first = list._idleNext;
        if (first !== list) {
            timeoutDriver = nativeSetTimeout(runTimeouts, Math.max(1, first._idleStart + first._idleTimeout - t));
        }
    }

    return { setImmediate: floorSetImmediate, setTimeout: floorSetTimeout };
}

/* the floor over the global setImmediate and setTimeout (floor-install.js) */
function install( ) {
    var floor = makeFloor(true);
    globalThis.setImmediate = floor.setImmediate;
    globalThis.setTimeout = floor.setTimeout;
}

// ---------------------------------------------------------------- rounds and table

function main( argv ) {
    var opts = { rounds: 3, node: process.execPath, quick: false, als: false, depth: undefined };
    for (var i = 0; i < argv.length; i++) {
        if (argv[i] === '--rounds') opts.rounds = Number(argv[++i]);
        else if (argv[i] === '--node') opts.node = argv[++i];
        else if (argv[i] === '--help') { console.log(usage()); return; }
        else { console.error(argv[i] + ': unknown option\n' + usage()); process.exit(2); }
    }
    if (!(opts.rounds >= 1)) { console.error('--rounds must be a positive number'); process.exit(2); }
    var scenarios = run.loadScenarios(ROWS);
    console.log('%s, %d rounds; values are medians, speedups medians of the per-round ratios to native',
        run.systemInfo(opts).node, opts.rounds);
    var results = scenarios.map(function( scenario ) {
        return { scenario: scenario, values: { native: [], qtimers: [], floor: [] }, speedups: { qtimers: [], floor: [] } };
    });
    for (var round = 1; round <= opts.rounds; round++) {
        results.forEach(function( result ) {
            var values = {}, rates = {};
            MODES.forEach(function( mode ) {
                var outcome = run.runChild(result.scenario, mode, opts);
                if (outcome.error) throw new Error(result.scenario.id + ' ' + mode + ' round ' + round + ': ' + outcome.error);
                values[mode] = outcome.value;
                rates[mode] = outcome.callbackRate;
                result.values[mode].push(outcome.value);
            });
            ['qtimers', 'floor'].forEach(function( mode ) {
                // run.js's ratio (CPU rows per callback), with this mode in qtimers' place
                result.speedups[mode].push(run.advantage(result.scenario, values.native, values[mode],
                    { native: rates.native, qtimers: rates[mode] }));
            });
        });
        console.log('  round %d of %d done', round, opts.rounds);
    }
    console.log('\n%s  %s  %s  %s  %s  %s', pad('scenario', 52), pad('native', 10), pad('qtimers', 10), pad('floor', 10), pad('qtimers', 8), pad('floor', 8));
    results.forEach(function( result ) {
        var s = result.scenario;
        var cells = MODES.map(function( mode ) { return pad(chart.formatValue(run.median(result.values[mode]), s.unit), 10); });
        console.log('%s  %s  %s  %s  %s  %s', pad(s.label + ' (' + s.unit + ')', 52), cells[0], cells[1], cells[2],
            pad(run.median(result.speedups.qtimers).toFixed(2) + 'x', 8), pad(run.median(result.speedups.floor).toFixed(2) + 'x', 8));
    });
    console.log('\nspeedup > 1 means better than native (CPU rows: native CPU per callback / the mode\'s).');
}

function pad( s, n ) {
    s = String(s);
    return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function usage( ) {
    return 'usage: node benchmark/floor.js [--rounds N] [--node PATH]\n\n' +
        'Runs the 10k-batch, 1000-loop and refresh() rows of the main table natively, with\n' +
        'qtimers and with a bare implementation that keeps only Node\'s tick drain between\n' +
        'callbacks and a list kept in expiry order (the floor), in fresh processes, and prints\n' +
        'medians and speedups over native.';
}

module.exports = { makeFloor: makeFloor, install: install };
