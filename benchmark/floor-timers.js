/**
 * The floor's implementation: a bare setImmediate and setTimeout that keep only what no drop-in
 * library can drop (benchmark/floor.js says what, and measures it against native and qtimers).
 *
 * makeFloor(tickDrain) returns the two functions; tickDrain = false leaves out the
 * process._tickCallback between two callbacks (test-benchmark.js shows that the drain is what
 * makes the difference).  install() puts them over the globals (floor-install.js, the 'floor'
 * mode of the benchmark's children).
 * It must never be used for anything but measuring: it has no unref, no clear, no arguments,
 * no async context, no error safety, no second delay and no interval.
 */

'use strict';

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

module.exports = { makeFloor: makeFloor, install: install };
