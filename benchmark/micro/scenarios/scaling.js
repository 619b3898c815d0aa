/**
 * Scaling: does the cost of one timer depend on how many others are pending?
 *
 *   pending-N   N pending setTimeouts (delays 30..31 s, 1000 distinct values), then time
 *               setTimeout + clearTimeout pairs drawn from the same delays
 *
 * Rate: set+clear pairs per wall second.  It should be about the same for every N.
 */

'use strict';

const harness = require('../harness');
const noop = harness.noop;

const BATCH = 10000;
const DISTINCT_DELAYS = 1000;

function delayFor( i ) { return 30000 + i % DISTINCT_DELAYS }

function setClearWithPending( count ) {
    return function run( opts, done ) {
        for (let i = 0; i < count; i++) setTimeout(noop, delayFor(i));

        let n = 0;
        harness.measureRate(opts, BATCH, 40, function(cb) {
            for (let i = 0; i < BATCH; i++) clearTimeout(setTimeout(noop, delayFor(n++)));
            cb();
        }, done);
    };
}

function scalingRow( label, count ) {
    return { group: 'Scaling', label: 'set+clear setTimeout with ' + label + ' pending', unit: 'ops/s',
        better: 'higher', run: setClearWithPending(count) };
}

module.exports = {
    'pending-1k': scalingRow('1k', 1e3),
    'pending-10k': scalingRow('10k', 1e4),
    'pending-100k': scalingRow('100k', 1e5),
    'pending-1m': scalingRow('1M', 1e6),
};

if (require.main === module) harness.main(module.exports);
