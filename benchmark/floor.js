/**
 * The floor: how fast can any JavaScript timers library be while it keeps Node's rule that the
 * nextTick and microtask queues are drained between two callbacks?
 *
 * Runs five rows of the main table (runner.js and statistics.js: the same scenario files,
 * children and speedup arithmetic) natively, with qtimers, and with `floor`, a bare
 * implementation (benchmark/floor-timers.js, preloaded by floor-install.js as qtimers is by
 * index.js) that keeps only what no drop-in library can drop: a new handle object per call,
 * the callback check, first-in first-out order, one native driver timer,
 * process._tickCallback between callbacks, and for refresh() an unlink and a re-append that
 * keep the list in expiry order.  It has no unref or clear, no arguments, no async context,
 * no error safety, no second delay, no interval: it is not a timers library, it is the lower
 * bound on the cost of one.  A target above the floor's own speedup cannot be met by making
 * qtimers leaner, only by breaking the rule.
 *
 *     node benchmark/floor.js [--rounds N] [--node PATH]
 *
 * The three modes alternate within each round; medians over rounds are printed with the
 * speedups over native in the same rounds.
 */

'use strict';

var runner = require('./runner');
var statistics = require('./statistics');
var chart = require('./chart');

// the main table's rows measured against the floor (ids of benchmark/scenarios/*)
var ROWS = /^(primitives\/immediate-batch-0|primitives\/timeout-batch-0|cpu\/loops-1000|server\/refresh-10k|server\/refresh-100k)$/;
var MODES = ['native', 'qtimers', 'floor'];

if (require.main === module) main(process.argv.slice(2));

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
    var scenarios = runner.loadScenarios(ROWS);
    console.log('%s, %d rounds; values are medians, speedups medians of the per-round ratios to native',
        runner.systemInfo(opts).node, opts.rounds);
    var results = scenarios.map(function( scenario ) {
        return { scenario: scenario, values: { native: [], qtimers: [], floor: [] }, speedups: { qtimers: [], floor: [] } };
    });
    for (var round = 1; round <= opts.rounds; round++) {
        results.forEach(function( result ) {
            var values = {}, rates = {};
            MODES.forEach(function( mode ) {
                var outcome = runner.runChild(result.scenario, mode, opts);
                if (outcome.error) throw new Error(result.scenario.id + ' ' + mode + ' round ' + round + ': ' + outcome.error);
                values[mode] = outcome.value;
                rates[mode] = outcome.callbackRate;
                result.values[mode].push(outcome.value);
            });
            ['qtimers', 'floor'].forEach(function( mode ) {
                // the main table's ratio (CPU rows per callback), with this mode in qtimers' place
                result.speedups[mode].push(statistics.advantage(result.scenario, values.native, values[mode],
                    { native: rates.native, qtimers: rates[mode] }));
            });
        });
        console.log('  round %d of %d done', round, opts.rounds);
    }
    console.log('\n%s  %s  %s  %s  %s  %s', pad('scenario', 52), pad('native', 10), pad('qtimers', 10), pad('floor', 10), pad('qtimers', 8), pad('floor', 8));
    results.forEach(function( result ) {
        var s = result.scenario;
        var cells = MODES.map(function( mode ) { return pad(chart.formatValue(statistics.median(result.values[mode]), s.unit), 10); });
        console.log('%s  %s  %s  %s  %s  %s', pad(s.label + ' (' + s.unit + ')', 52), cells[0], cells[1], cells[2],
            pad(statistics.median(result.speedups.qtimers).toFixed(2) + 'x', 8), pad(statistics.median(result.speedups.floor).toFixed(2) + 'x', 8));
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
