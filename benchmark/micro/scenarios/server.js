/**
 * Server pattern: many long (30 s) idle/request timeouts that are constantly pushed back
 * because their connections keep showing activity.
 *
 *   refresh-N    N pending 30 s timeouts; touch random ones with handle.refresh()
 *   recreate-N   N pending 30 s timeouts; touch random ones by clearTimeout + setTimeout,
 *                and re-create every 1000th touched one with a 1 ms delay so that a few
 *                do fire in the meantime (the requests that time out)
 *
 * Work is done in batches of 1000 touches with a setImmediate between batches, so the
 * event loop (and any expired timers) gets to run like it would between requests.
 * Rate: touches per wall second.  The timers are touched in the same pseudo-random order
 * in both modes.
 */

'use strict';

const harness = require('../harness');
const noop = harness.noop;

const LONG_MS = 30000;
const TOUCHES = 1000;
const SHORT_EVERY = 1000;

function refreshTimers( count ) {
    return function run( opts, done ) {
        const random = harness.makeRandom(count);
        const timers = new Array(count);
        for (let i = 0; i < count; i++) timers[i] = setTimeout(noop, LONG_MS);

        harness.measureRate(opts, TOUCHES, 400, function(cb) {
            for (let i = 0; i < TOUCHES; i++) timers[random(count)].refresh();
            setImmediate(cb);
        }, done);
    };
}

function recreateTimers( count ) {
    return function run( opts, done ) {
        const random = harness.makeRandom(count);
        const timers = new Array(count);
        let touches = 0, expired = 0;
        function onExpire() { expired += 1 }
        for (let i = 0; i < count; i++) timers[i] = setTimeout(onExpire, LONG_MS);

        harness.measureRate(opts, TOUCHES, 400, function(cb) {
            for (let i = 0; i < TOUCHES; i++) {
                const k = random(count);
                clearTimeout(timers[k]);
                timers[k] = setTimeout(onExpire, ++touches % SHORT_EVERY === 0 ? 1 : LONG_MS);
            }
            setImmediate(cb);
        }, function(result) {
            console.log('%d of %d touched timers expired', expired, touches);
            result.expired = expired;
            done(result);
        });
    };
}

function serverRow( label, run ) {
    return { group: 'Server', label: label, unit: 'ops/s', better: 'higher', run: run };
}

module.exports = {
    'refresh-10k': serverRow('refresh() random ones of 10k 30 s timeouts', refreshTimers(10000)),
    'refresh-100k': serverRow('refresh() random ones of 100k 30 s timeouts', refreshTimers(100000)),
    'recreate-10k': serverRow('clear+re-create random ones of 10k 30 s timeouts, 0.1% fire', recreateTimers(10000)),
    'recreate-100k': serverRow('clear+re-create random ones of 100k 30 s timeouts, 0.1% fire', recreateTimers(100000)),
};

if (require.main === module) harness.main(module.exports);
