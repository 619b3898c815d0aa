/**
 * Primitives: callbacks that actually run.
 *
 *   recursive-N        a setImmediate callback that re-queues itself with N args, 10k times
 *   timeout-batch-N    create 10k setTimeout(fn, 1, ...N args) and wait for all to run
 *   immediate-batch-N  create 10k setImmediate(fn, ...N args) and wait for all to run
 *
 * Rate: callbacks run per wall second.  The recursive loop mostly measures the cost of a
 * trip through the event loop per callback, so it is the one scenario where
 * setImmediate.maxTickDepth (--depth) matters most.
 */

'use strict';

const harness = require('../harness');

const BATCH = 10000;

function recursiveImmediate( nargs ) {
    return function run( opts, done ) {
        harness.measureRate(opts, BATCH, 10, function(cb) {
            let left = BATCH;
            // each variant re-queues itself with the same number of args it was given
            function loop0() { if (--left > 0) setImmediate(loop0); else cb() }
            function loop1(a) { if (--left > 0) setImmediate(loop1, a); else cb() }
            function loop3(a, b, c) { if (--left > 0) setImmediate(loop3, a, b, c); else cb() }
            if (nargs === 0) loop0();
            else if (nargs === 1) loop1('a');
            else loop3('a', 'b', 'c');
        }, done);
    };
}

// wait for BATCH callbacks, then continue with cb
function countdown( cb ) {
    let left = BATCH;
    return function fired() { if (--left === 0) cb() };
}

function timeoutBatch( nargs ) {
    return function run( opts, done ) {
        harness.measureRate(opts, BATCH, 40, function(cb) {
            const fired = countdown(cb);
            let i;
            if (nargs === 0) for (i = 0; i < BATCH; i++) setTimeout(fired, 1);
            else if (nargs === 1) for (i = 0; i < BATCH; i++) setTimeout(fired, 1, 'a');
            else for (i = 0; i < BATCH; i++) setTimeout(fired, 1, 'a', 'b', 'c');
        }, done);
    };
}

function immediateBatch( nargs ) {
    return function run( opts, done ) {
        harness.measureRate(opts, BATCH, 100, function(cb) {
            const fired = countdown(cb);
            let i;
            if (nargs === 0) for (i = 0; i < BATCH; i++) setImmediate(fired);
            else if (nargs === 1) for (i = 0; i < BATCH; i++) setImmediate(fired, 'a');
            else for (i = 0; i < BATCH; i++) setImmediate(fired, 'a', 'b', 'c');
        }, done);
    };
}

function primitive( label, run ) {
    return { group: 'Primitives', label: label, unit: 'calls/s', better: 'higher', run: run };
}

module.exports = {
    'recursive-0': primitive('self-recursive setImmediate, 0 args', recursiveImmediate(0)),
    'recursive-1': primitive('self-recursive setImmediate, 1 arg', recursiveImmediate(1)),
    'recursive-3': primitive('self-recursive setImmediate, 3 args', recursiveImmediate(3)),
    'timeout-batch-0': primitive('create+run 10k setTimeout, 0 args', timeoutBatch(0)),
    'timeout-batch-1': primitive('create+run 10k setTimeout, 1 arg', timeoutBatch(1)),
    'timeout-batch-3': primitive('create+run 10k setTimeout, 3 args', timeoutBatch(3)),
    'immediate-batch-0': primitive('create+run 10k setImmediate, 0 args', immediateBatch(0)),
    'immediate-batch-1': primitive('create+run 10k setImmediate, 1 arg', immediateBatch(1)),
    'immediate-batch-3': primitive('create+run 10k setImmediate, 3 args', immediateBatch(3)),
};

if (require.main === module) harness.main(module.exports);
