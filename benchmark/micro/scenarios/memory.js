/**
 * Memory: heap bytes per pending timer.
 *
 *   pending-1m   1M pending setTimeout(fn, 60000); the handles are not kept by the
 *                scenario, only by the timer implementation
 *
 * Value: (heapUsed after - heapUsed before) / 1M, each after a full gc().  Needs
 * node --expose-gc (run.js passes it, from nodeArgs).  Lower is better.
 */

'use strict';
/* global gc */   // node --expose-gc

const harness = require('../harness');
const noop = harness.noop;

const COUNT = 1000000;

function pendingTimeouts( opts, done ) {
    if (typeof gc !== 'function') throw new Error('run with node --expose-gc');

    // create and cancel one timer first, so lazily built timer structures are not counted
    clearTimeout(setTimeout(noop, 60000));
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < COUNT; i++) setTimeout(noop, 60000);
    gc();
    const after = process.memoryUsage().heapUsed;

    const bytesPerTimer = (after - before) / COUNT;
    console.log('heapUsed %s MB -> %s MB: %s bytes per pending timer',
        (before / 1e6).toFixed(1), (after / 1e6).toFixed(1), bytesPerTimer.toFixed(1));
    done({ value: bytesPerTimer });
}

module.exports = {
    'pending-1m': {
        group: 'Memory', label: 'heap per pending setTimeout, 1M pending', unit: 'bytes',
        better: 'lower', nodeArgs: ['--expose-gc'], run: pendingTimeouts,
    },
};

if (require.main === module) harness.main(module.exports);
