/**
 * Basics: the cost of scheduling and cancelling, with nothing ever firing.
 *
 *   timeout-N    setTimeout(fn, 1, ...N args) immediately cleared with clearTimeout
 *   immediate-N  setImmediate(fn, ...N args) immediately cleared with clearImmediate
 *   immediate-40k  set 40k immediates, clear them all, then run 1 (the batch callback)
 *
 * Rate: set+clear pairs per wall second.
 */

'use strict';

const harness = require('../harness');
const noop = harness.noop;

const BATCH = 10000;

// one call site per argument count, so each variant stays monomorphic
const startTimeout = {
    0: function() { return setTimeout(noop, 1) },
    1: function() { return setTimeout(noop, 1, 'a') },
    3: function() { return setTimeout(noop, 1, 'a', 'b', 'c') },
};
const startImmediate = {
    0: function() { return setImmediate(noop) },
    1: function() { return setImmediate(noop, 'a') },
    3: function() { return setImmediate(noop, 'a', 'b', 'c') },
};

function setClearTimeouts( nargs ) {
    const start = startTimeout[nargs];
    return function run( opts, done ) {
        harness.measureRate(opts, BATCH, 40, function(cb) {
            for (let i = 0; i < BATCH; i++) clearTimeout(start());
            cb();
        }, done);
    };
}

function setClearImmediates( nargs ) {
    const start = startImmediate[nargs];
    return function run( opts, done ) {
        harness.measureRate(opts, BATCH, 100, function(cb) {
            for (let i = 0; i < BATCH; i++) clearImmediate(start());
            cb();
        }, done);
    };
}

function setClear40kRunOne( opts, done ) {
    const count = 40000;
    const handles = new Array(count);
    harness.measureRate(opts, count, 20, function(cb) {
        let i;
        for (i = 0; i < count; i++) handles[i] = setImmediate(noop);
        for (i = 0; i < count; i++) clearImmediate(handles[i]);
        // the queue is now all cancelled entries; the one live immediate must get past them
        setImmediate(cb);
    }, done);
}

function basic( label, run ) {
    return { group: 'Basics', label: label, unit: 'ops/s', better: 'higher', run: run };
}

module.exports = {
    'timeout-0': basic('set+clear setTimeout, 0 args', setClearTimeouts(0)),
    'timeout-1': basic('set+clear setTimeout, 1 arg', setClearTimeouts(1)),
    'timeout-3': basic('set+clear setTimeout, 3 args', setClearTimeouts(3)),
    'immediate-0': basic('set+clear setImmediate, 0 args', setClearImmediates(0)),
    'immediate-1': basic('set+clear setImmediate, 1 arg', setClearImmediates(1)),
    'immediate-3': basic('set+clear setImmediate, 3 args', setClearImmediates(3)),
    'immediate-40k': basic('set 40k immediates, clear them, run 1', setClear40kRunOne),
};

if (require.main === module) harness.main(module.exports);
