/**
 * The floor: how fast can any JavaScript timers library be while it keeps Node's rule that the
 * nextTick and microtask queues are drained between two callbacks?
 *
 * Runs three of the main table's scenarios natively, with qtimers, and with `floor`, a bare
 * implementation (below) that keeps only what no drop-in library can drop: a new handle object
 * per call, the callback check, first-in first-out order, one native driver timer, and
 * process._tickCallback between callbacks.  It has no unref or clear, no arguments, no async
 * context, no error safety, no second delay, no interval: it is not a timers library, it is the
 * lower bound on the cost of one.  A target above the floor's own speedup cannot be met by
 * making qtimers leaner, only by breaking the rule.
 *
 *     node benchmark/floor.js [--rounds N] [--node PATH]
 *
 * Each measurement runs in a fresh process (this file, with a mode and a scenario name), the
 * three modes alternating within each round; medians over rounds are printed with the
 * speedups over native in the same run.  `--notick` (for a child) leaves out the tick drain,
 * to show what the rule itself costs.
 */

'use strict';

var childProcess = require('child_process');
var path = require('path');

var BATCH = 10000;

var SCENARIOS = {
    'immediate-batch': { label: 'create+run 10k setImmediate, 0 args', unit: 'calls/s', better: 'higher' },
    'timeout-batch': { label: 'create+run 10k setTimeout, 0 args', unit: 'calls/s', better: 'higher' },
    'loops-1000': { label: '1000 concurrent 1 ms setTimeout loops', unit: 'ns CPU/call', better: 'lower' },
};
var MODES = ['native', 'qtimers', 'floor'];

if (require.main === module) {
    if (process.argv[2] === '--child') child(process.argv[3], process.argv[4], process.argv[5] === '--notick');
    else parent(process.argv.slice(2));
}

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
        if (timeoutDriver === null && !draining) timeoutDriver = nativeSetTimeout(runTimeouts, after);
        return timer;
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

// ---------------------------------------------------------------- child: one measurement

function child( mode, name, noTick ) {
    var timers = { setImmediate: setImmediate, setTimeout: setTimeout };
    // the parent's own clock and end-of-run timer stay native in every mode
    var nativeSetTimeout = setTimeout;
    if (mode === 'floor') timers = makeFloor(!noTick);
    else if (mode === 'qtimers') timers = require('..');     // installed, as the main table's runs
    else if (mode !== 'native') throw new Error(mode + ': unknown mode');
    var report = function( value ) {
        console.log('RESULT ' + JSON.stringify({ value: value }));
    };
    if (name === 'immediate-batch') batchRate(timers.setImmediate, undefined, report);
    else if (name === 'timeout-batch') batchRate(timers.setTimeout, 1, report);
    else if (name === 'loops-1000') loopsCpu(timers.setTimeout, 1000, nativeSetTimeout, report);
    else throw new Error(name + ': unknown scenario');
}

/* calls a second of create-and-run batches of 10k, after half a second of warm-up; `delay`:
 * undefined for setImmediate, else the setTimeout delay */
function batchRate( schedule, delay, report ) {
    var warmUntil = 0, started = 0, counted = 0, finish = 0;
    var t0 = process.hrtime.bigint();
    function ms( ) { return Number(process.hrtime.bigint() - t0) / 1e6; }
    function batch( ) {
        var t = ms();
        if (warmUntil === 0) warmUntil = t + 500;
        else if (started === 0 && t >= warmUntil) { started = t; finish = t + 1000; }
        else if (started > 0) {
            counted += BATCH;
            if (t >= finish) return report(counted / ((t - started) / 1000));
        }
        var left = BATCH;
        function fired( ) { if (--left === 0) batch(); }
        var i;
        if (delay === undefined) for (i = 0; i < BATCH; i++) schedule(fired);
        else for (i = 0; i < BATCH; i++) schedule(fired, delay);
    }
    batch();
}

/* CPU nanoseconds per callback of `n` self-requeueing 1 ms loops, over 3 s after 1 s */
function loopsCpu( setTimeoutFn, n, nativeSetTimeout, report ) {
    var calls = 0;
    function loop( ) { calls += 1; setTimeoutFn(loop, 1); }
    for (var i = 0; i < n; i++) setTimeoutFn(loop, 1);
    nativeSetTimeout(function( ) {
        var cpu0 = process.cpuUsage(), calls0 = calls;
        nativeSetTimeout(function( ) {
            var cpu = process.cpuUsage(cpu0);
            report((cpu.user + cpu.system) * 1000 / (calls - calls0));
            process.exit(0);
        }, 3000);
    }, 1000);
}

// ---------------------------------------------------------------- parent: rounds and table

function parent( argv ) {
    var rounds = 3, node = process.execPath;
    for (var i = 0; i < argv.length; i++) {
        if (argv[i] === '--rounds') rounds = Number(argv[++i]);
        else if (argv[i] === '--node') node = argv[++i];
        else if (argv[i] === '--help') { console.log(usage()); return; }
        else { console.error(argv[i] + ': unknown option\n' + usage()); process.exit(2); }
    }
    if (!(rounds >= 1)) { console.error('--rounds must be a positive number'); process.exit(2); }
    var version = childProcess.execFileSync(node, ['--version']).toString().trim();
    console.log('node %s, %d rounds; each value a median, speedup = vs native in the same rounds', version, rounds);
    var names = Object.keys(SCENARIOS);
    var results = {};
    names.forEach(function( name ) {
        results[name] = {};
        MODES.forEach(function( mode ) { results[name][mode] = []; });
    });
    for (var r = 0; r < rounds; r++) {
        names.forEach(function( name ) {
            MODES.forEach(function( mode ) { results[name][mode].push(measure(node, mode, name)); });
        });
        process.stdout.write('  round ' + (r + 1) + ' of ' + rounds + ' done\n');
    }
    console.log('\n%s  %s  %s  %s  %s  %s', pad('scenario', 52), pad('native', 10), pad('qtimers', 10), pad('floor', 10), pad('qtimers', 8), pad('floor', 8));
    names.forEach(function( name ) {
        var s = SCENARIOS[name], med = {}, speedup = {};
        MODES.forEach(function( mode ) { med[mode] = median(results[name][mode]); });
        ['qtimers', 'floor'].forEach(function( mode ) {
            // per round, as run.js does: native and this mode ran back to back
            speedup[mode] = median(results[name][mode].map(function( v, k ) {
                var n = results[name].native[k];
                return s.better === 'higher' ? v / n : n / v;
            }));
        });
        console.log('%s  %s  %s  %s  %s  %s', pad(s.label + ' (' + s.unit + ')', 52), pad(fmt(med.native), 10), pad(fmt(med.qtimers), 10),
            pad(fmt(med.floor), 10), pad(speedup.qtimers.toFixed(2) + 'x', 8), pad(speedup.floor.toFixed(2) + 'x', 8));
    });
    console.log('\nspeedup > 1 means better than native (for CPU per call: native / mode).');
}

function measure( node, mode, name ) {
    var args = ['--no-memory-reducer', __filename, '--child', mode, name];
    var out = childProcess.execFileSync(node, args, { encoding: 'utf8' });
    var m = /^RESULT (.*)$/m.exec(out);
    if (!m) throw new Error(mode + ' ' + name + ': no result in ' + JSON.stringify(out));
    return JSON.parse(m[1]).value;
}

function median( values ) {
    var v = values.slice().sort(function( a, b ) { return a - b; });
    var mid = v.length >> 1;
    return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

function fmt( x ) {
    return x >= 1e6 ? (x / 1e6).toFixed(2) + 'M' : x >= 1e4 ? (x / 1e3).toFixed(1) + 'k' : x.toFixed(0);
}

function pad( s, n ) {
    s = String(s);
    return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function usage( ) {
    return 'usage: node benchmark/floor.js [--rounds N] [--node PATH]\n\n' +
        'Runs the 10k-batch and 1000-loop scenarios natively, with qtimers and with a bare\n' +
        'implementation that keeps only Node\'s tick drain between callbacks (the floor),\n' +
        'in fresh processes, and prints medians and speedups over native.';
}

module.exports = { makeFloor: makeFloor, SCENARIOS: SCENARIOS };
