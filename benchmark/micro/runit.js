/**
 * The seed study's timing scaffolding, kept for `npm run bench`'s batch rows (harness.js's
 * measureRate): `aflow` sequences the repeats, `arlib/timeit` times each one, `qprintf` prints
 * the "item rate min-max-avg" row.
 *
 * Two corrections to the seed's version, both checked against arlib/lib/timeit.js:
 *   - timeit(nruns, f, cb) calls f(cb) nruns + 1 times (2 priming calls plus
 *     nruns - 1 timed ones), not the nruns + 2 the seed's adjustment assumed, so
 *     here the calls are counted instead of inferred.
 *   - unless given its NOOUTPUT message, timeit prints the whole source of f after
 *     every repeat, which buries the result rows.
 *
 * f always receives a callback and must call it when its batch of items is done
 * (synchronously for set/clear loops, later for batches that must fire).
 * Rates are items per second of `clock` (wall seconds unless told otherwise).
 */

'use strict';

const aflow = require('aflow');
const timeit = require('arlib/timeit');
const qprintf = require('qprintf');

module.exports = runit;

const TIMEIT_QUIET = '/* NOOUTPUT */';

function runit( repeats, nruns, nItemsPerRun, name, f, callback, clock ) {
    clock = clock || timeit.fptime;
    console.log(name);

    let calls = 0;
    function countedF( cb ) { calls += 1; f(cb); }

    let j = 0, min, max, sum = 0, totalCalls = 0;
    aflow.repeatWhile(
        function() { return j++ < repeats; },
        function(next) {
            calls = 0;
            const t1 = clock();
            timeit(nruns, countedF, TIMEIT_QUIET, function(err) {
                const elapsed = clock() - t1;
                const rate = calls * nItemsPerRun / elapsed;
                totalCalls += calls;
                sum += elapsed;
                if (min === undefined || rate < min) min = rate;
                if (max === undefined || rate > max) max = rate;
                next(err);
            });
        },
        function(err) {
            if (err) throw err;
            const avg = totalCalls * nItemsPerRun / sum;
            console.log(qprintf.sprintf("item rate min-max-avg %6.4f %6.4f %6.4f", min, max, avg));
            callback({ min: min, max: max, avg: avg });
        }
    );
}
