#!/usr/bin/env node
/**
 * qtimers benchmark runner (`npm run bench`, `npm run bench -- --help`).
 *
 * Runs every scenario of benchmark/scenarios/*.js in a fresh child process, once with
 * the native timers and once with qtimers preloaded (`node -r <root>/index.js`),
 * strictly one child at a time and alternating native, qtimers, native, qtimers, ...
 * for several rounds, so that a noisy neighbour hurts both modes alike.  The per-round
 * qtimers/native ratio is what gets summarized (median over rounds).
 *
 * Prints one table, and writes it to benchmark/results/table.md together with an SVG
 * bar chart in benchmark/results/chart.svg for the README.  Those two files are only ever
 * replaced by a full run of every scenario: --quick (one short round, whose numbers are
 * indicative only) writes its own to benchmark/results/quick/, which git ignores, and says
 * so before it starts and under its table.
 */

'use strict';

var fs = require('fs');
var os = require('os');
var path = require('path');
var child_process = require('child_process');
var qprintf = require('qprintf');
var chart = require('./chart');

var ROOT = path.resolve(__dirname, '..');
var QTIMERS = path.join(ROOT, 'index.js');
var FLOOR = path.join(__dirname, 'floor-install.js');     // the floor's mode (floor.js)
var RESULTS_DIR = path.join(__dirname, 'results');
var QUICK_RESULTS_DIR = path.join(RESULTS_DIR, 'quick');
// What a --quick run of every scenario takes on an idle 2-core machine (31 s measured on Node 20:
// 13 s of fixed wall-clock windows, the rest 25 s of CPU in 64 processes, one at a time).  Other
// work on the machine stretches the CPU part (3 minutes at a load average of 10), so --help
// states the idle time, and a run that took much longer says so, since the same load that
// slowed it also moved its numbers.
var QUICK_SECONDS = 30;
var QUICK_CAVEAT = '--quick: one short round of each scenario on this machine, so these numbers are indicative only ' +
    '(a row can move by 2x from one run to the next on a shared machine); `npm run bench` measures several full rounds.';
var FAMILIES = ['basics', 'primitives', 'cpu', 'server', 'timeouts', 'memory', 'scaling'];

var HELP = [
    'usage: npm run bench -- [options]     (or: node benchmark/run.js [options])',
    '',
    'Runs each scenario natively and with qtimers preloaded, in fresh processes, alternating,',
    'and prints native rate, qtimers rate and speedup (median over rounds).',
    '',
    '  --quick         every scenario once, shorter timings: about ' + QUICK_SECONDS + ' s on an idle 2-core machine,',
    '                  longer on a busy one; its numbers are indicative only and go to',
    '                  benchmark/results/quick/, not to the committed results',
    '  --rounds N      how many native+qtimers rounds to run (default 3, 1 with --quick)',
    '  --only REGEX    only the scenarios whose id or label matches, e.g. --only "^cpu/"',
    '  --node PATH     run the scenarios with this node binary (default: ' + process.execPath + ')',
    '  --depth N       set setImmediate.maxTickDepth = N in the qtimers runs (0 = node semantics)',
    '  --als           run every scenario with an AsyncLocalStorage store active',
    '  --no-chart      write table.md only, not chart.svg (a full run writes both to benchmark/results/,',
    '                  a run with --only and without --quick writes neither)',
    '  --list          list the scenario ids and exit',
    '  --help          this text',
].join('\n');

function parseArgs( argv ) {
    var opts = { quick: false, rounds: undefined, only: undefined, node: process.execPath,
        depth: undefined, als: false, chart: true, list: false };
    function value( i ) {
        if (i >= argv.length) fail(argv[i - 1] + ': missing value');
        return argv[i];
    }
    for (var i = 0; i < argv.length; i++) {
        switch (argv[i]) {
        case '--quick': opts.quick = true; break;
        case '--rounds': opts.rounds = positiveInt('--rounds', value(++i)); break;
        case '--only': opts.only = new RegExp(value(++i)); break;
        case '--node': opts.node = value(++i); break;
        case '--depth': opts.depth = Number(value(++i)); if (isNaN(opts.depth)) fail('--depth: not a number'); break;
        case '--als': opts.als = true; break;
        case '--no-chart': opts.chart = false; break;
        case '--list': opts.list = true; break;
        case '--help': case '-h': console.log(HELP); process.exit(0); break;
        default: fail(argv[i] + ': unknown option (see --help)');
        }
    }
    if (opts.rounds === undefined) opts.rounds = opts.quick ? 1 : 3;
    return opts;
}

function positiveInt( name, str ) {
    var n = Number(str);
    if (!(n >= 1 && n === Math.floor(n))) fail(name + ': expected a positive integer, got ' + str);
    return n;
}

function fail( message ) {
    console.error('run.js: ' + message);
    process.exit(2);
}

// the scenario table, in family order; reading it does not run anything
function loadScenarios( only ) {
    var list = [];
    FAMILIES.forEach(function(family) {
        var file = path.join(__dirname, 'scenarios', family + '.js');
        var table = require(file);
        Object.keys(table).forEach(function(name) {
            var id = family + '/' + name;
            var def = table[name];
            if (only && !only.test(id) && !only.test(def.label)) return;
            // a row that names node options but gives none would silently run without them
            if ('nodeArgs' in def && !(Array.isArray(def.nodeArgs) && def.nodeArgs.length > 0)) {
                fail(id + ': nodeArgs is ' + JSON.stringify(def.nodeArgs) + ', not a list of node options');
            }
            list.push({ id: id, file: file, name: name, group: def.group, label: def.label,
                unit: def.unit, better: def.better, nodeArgs: def.nodeArgs || [] });
        });
    });
    return list;
}

function childArgs( scenario, mode, opts ) {
    var args = scenario.nodeArgs.slice();
    if (mode === 'qtimers') args.push('-r', QTIMERS);
    else if (mode === 'floor') args.push('-r', FLOOR);
    args.push(scenario.file, scenario.name);
    if (opts.quick) args.push('--quick');
    if (opts.als) args.push('--als');
    // maxTickDepth is a qtimers knob; native runs keep node's own semantics
    if (mode === 'qtimers' && opts.depth !== undefined) args.push('--depth', String(opts.depth));
    return args;
}

// run one scenario in a fresh process; returns { value, ... } or { error }
function runChild( scenario, mode, opts ) {
    var child = child_process.spawnSync(opts.node, childArgs(scenario, mode, opts), {
        cwd: __dirname, encoding: 'utf8', timeout: opts.quick ? 20000 : 60000, killSignal: 'SIGKILL',
        maxBuffer: 16 * 1024 * 1024,
    });
    var resultLine = (child.stdout || '').split('\n').filter(function(line) { return /^RESULT /.test(line) }).pop();
    if (child.error && child.error.code === 'ETIMEDOUT') return { error: 'timed out' };
    if (child.error) return { error: child.error.message };
    if (child.status !== 0 || !resultLine) {
        var why = child.signal ? 'killed by ' + child.signal : 'exit code ' + child.status;
        if (!resultLine) why += ', no RESULT line';
        // the thrown error's message if there is one, else whatever was printed last
        var stderrLines = (child.stderr || '').trim().split('\n');
        var message = stderrLines.filter(function(line) { return /^\w*Error\b/.test(line) })[0] || stderrLines.pop();
        return { error: why + (message ? ': ' + message.trim() : '') };
    }
    return JSON.parse(resultLine.slice('RESULT '.length));
}

// spawn a quick child to see whether the library loads and installs itself
function checkQtimers( opts ) {
    if (!fs.existsSync(QTIMERS)) return 'not found: ' + QTIMERS;
    var child = child_process.spawnSync(opts.node, ['-r', QTIMERS, '-p', 'typeof setImmediate.maxTickDepth'],
        { encoding: 'utf8', timeout: 10000 });
    if (child.status !== 0) return 'preloading ' + QTIMERS + ' fails:\n' + (child.stderr || child.error);
    if (child.stdout.trim() !== 'number') return 'preloading ' + QTIMERS + ' did not install setImmediate.maxTickDepth';
    return null;
}

function systemInfo( opts ) {
    var child = child_process.spawnSync(opts.node, ['-p', 'process.version + " " + process.arch'], { encoding: 'utf8' });
    if (child.status !== 0) fail('--node ' + opts.node + ': cannot run it (' + (child.error || child.stderr.trim()) + ')');
    var version = child.stdout.trim();
    var cpus = os.cpus();
    return { node: 'node ' + version, cpu: cpus[0].model.trim(), cores: cpus.length };
}

function median( values ) {
    if (!values.length) return undefined;
    var sorted = values.slice().sort(function(a, b) { return a - b });
    var mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// the qtimers advantage in one round: > 1 is better for qtimers whichever way the unit points.
// CPU % rows compare CPU per callback (CPU % / callbacks per second): the same as the CPU %
// ratio while both modes keep up with their loops, and still a comparison of cost once one
// falls behind, where a CPU % that is lower only because fewer callbacks ran (or that is
// capped by a saturated core) would reward the slower implementation.
function advantage( scenario, nativeValue, qtimersValue, rates ) {
    if (scenario.unit === 'CPU %' && rates && rates.native > 0 && rates.qtimers > 0) {
        return (nativeValue / rates.native) / (qtimersValue / rates.qtimers);
    }
    return scenario.better === 'lower' ? nativeValue / qtimersValue : qtimersValue / nativeValue;
}

function runAll( scenarios, modes, opts ) {
    var results = scenarios.map(function(scenario) {
        return { scenario: scenario, native: [], qtimers: [], ratios: [], errors: [], warnings: [], seconds: [],
            callbackRate: { native: [], qtimers: [] } };
    });
    for (var round = 1; round <= opts.rounds; round++) {
        results.forEach(function(result) {
            var values = {}, rates = {};
            modes.forEach(function(mode) {
                var outcome = runChild(result.scenario, mode, opts);
                if (outcome.error) result.errors.push(mode + ' round ' + round + ': ' + outcome.error);
                else {
                    values[mode] = outcome.value;
                    result[mode].push(outcome.value);
                    if (outcome.seconds) result.seconds.push(outcome.seconds);
                    if (outcome.callbackRate !== undefined) {
                        rates[mode] = outcome.callbackRate;
                        result.callbackRate[mode].push(outcome.callbackRate);
                    }
                    if (outcome.alsStoreLost) result.warnings.push(mode + ' round ' + round + ': AsyncLocalStorage store lost');
                }
            });
            var ratio;
            if (values.native !== undefined && values.qtimers !== undefined) {
                ratio = advantage(result.scenario, values.native, values.qtimers, rates);
                result.ratios.push(ratio);
            }
            printProgress(round, opts.rounds, result.scenario, values, ratio);
        });
    }
    return results.map(function(result) {
        var ratios = result.ratios;
        return {
            scenario: result.scenario,
            native: median(result.native),
            qtimers: median(result.qtimers),
            speedup: median(ratios),
            speedupMin: ratios.length ? Math.min.apply(null, ratios) : undefined,
            speedupMax: ratios.length ? Math.max.apply(null, ratios) : undefined,
            seconds: median(result.seconds),
            callbackRate: { native: median(result.callbackRate.native), qtimers: median(result.callbackRate.qtimers) },
            errors: result.errors,
            warnings: result.warnings,
        };
    });
}

function printProgress( round, rounds, scenario, values, ratio ) {
    function show( mode ) {
        return values[mode] === undefined ? '-' : chart.formatValue(values[mode], scenario.unit);
    }
    console.log(qprintf.sprintf('  [%d/%d] %-28s native %-9s qtimers %-9s %s',
        round, rounds, scenario.id, show('native'), show('qtimers'), ratio === undefined ? '' : 'x' + ratio.toFixed(2)));
}

function formatCell( value, unit ) {
    return value === undefined ? 'n/a' : chart.formatValue(value, unit);
}

function formatSpeedup( row ) {
    if (row.speedup === undefined) return 'n/a';
    var text = row.speedup.toFixed(2) + 'x';
    if (row.speedupMax > row.speedupMin) text += ' (' + row.speedupMin.toFixed(2) + '-' + row.speedupMax.toFixed(2) + ')';
    return text;
}

// lower-is-better rows are marked with the footnote's asterisk (escaped for markdown)
function rowLabel( row, marker ) {
    return row.scenario.label + (row.scenario.better === 'lower' ? ' ' + (marker || '*') : '');
}

// scaling should be flat: compare the rate at the most pending timers to the rate at the fewest
function scalingNote( rows ) {
    var scaling = rows.filter(function(row) { return row.scenario.group === 'Scaling' });
    if (scaling.length < 2) return null;
    var first = scaling[0], last = scaling[scaling.length - 1];
    function flatness( mode ) {
        return first[mode] && last[mode] ? (last[mode] / first[mode]).toFixed(2) : 'n/a';
    }
    return 'Scaling: rate in the last Scaling row / rate in the first (most / fewest timers pending): native ' +
        flatness('native') + ', qtimers ' + flatness('qtimers') + ' (1.00 = flat).';
}

function nsPerCallback( cpuPercent, callbacksPerSecond ) {
    return (cpuPercent / 100 / callbacksPerSecond * 1e9).toFixed(0) + ' ns';
}

function notes( rows, opts ) {
    var list = [
        'speedup = qtimers / native, median of the per-round ratios (range over rounds in parentheses); > 1 means qtimers is better.',
        '* lower is better (CPU %, bytes): there speedup = native / qtimers, so > 1 still means qtimers is better.',
    ];
    if (rows.some(function(row) { return row.scenario.unit === 'CPU %' })) {
        list.push('CPU % rows: speedup = native CPU per callback / qtimers CPU per callback (CPU % / callbacks per second), ' +
            'which is the CPU % ratio while both keep up with their loops; where one falls behind (fewer callbacks, or a saturated core) ' +
            'the NOTE lines give both rates. Both modes are measured after a warm-up and without V8\'s memory reducer (benchmark/scenarios/cpu.js says why).');
    }
    var timed = rows.filter(function(row) { return row.seconds });
    if (timed.length) {
        list.push('Fixed-window rows (Cpu, setInterval) are measured over ' + median(timed.map(function(row) {
            return row.seconds })).toFixed(1) + ' s of wall time each; calls/cpu-s rates are per second of process CPU (user + system).');
    }
    rows.forEach(function(row) {
        // CPU % only compares like with like if both modes ran about as many callbacks
        var rates = row.callbackRate;
        if (rates.native && rates.qtimers && Math.abs(rates.qtimers / rates.native - 1) > 0.1) {
            var note = 'NOTE: ' + row.scenario.label + ': native ran ' + chart.formatValue(rates.native) +
                ' callbacks/s, qtimers ' + chart.formatValue(rates.qtimers);
            if (row.scenario.unit === 'CPU %') {
                note += '; CPU per callback: native ' + nsPerCallback(row.native, rates.native) +
                    ', qtimers ' + nsPerCallback(row.qtimers, rates.qtimers);
            }
            list.push(note + '.');
        }
    });
    var scaling = scalingNote(rows);
    if (scaling) list.push(scaling);
    // last, where a reader of the table looks after the rows
    if (opts.quick) list.push(QUICK_CAVEAT);
    return list;
}

function describeRun( info, opts ) {
    return info.node + ', ' + describeMachine(info, opts);
}

function describeMachine( info, opts ) {
    return info.cpu + ' (' + info.cores + ' cores), ' + opts.rounds + ' round' +
        (opts.rounds > 1 ? 's' : '') + (opts.quick ? ', --quick' : '') + (opts.als ? ', --als' : '') +
        (opts.depth !== undefined ? ', maxTickDepth ' + opts.depth : '');
}

function printTable( rows, info, opts ) {
    console.log('\n' + describeRun(info, opts) + '\n');
    var format = '%-62s %-12s %10s %10s  %s';
    console.log(qprintf.sprintf(format, 'scenario', 'unit', 'native', 'qtimers', 'speedup'));
    var group;
    rows.forEach(function(row) {
        if (row.scenario.group !== group) console.log((group = row.scenario.group) + ':');
        console.log(qprintf.sprintf(format, '  ' + rowLabel(row), row.scenario.unit,
            formatCell(row.native, row.scenario.unit), formatCell(row.qtimers, row.scenario.unit), formatSpeedup(row)));
    });
    console.log('');
    notes(rows, opts).forEach(function(note) { console.log(note) });
}

function markdownTable( rows, info, opts ) {
    var lines = [
        '**qtimers vs native timers**: ' + describeRun(info, opts) + ', ' + new Date().toISOString().slice(0, 10),
        '',
        '| group | scenario | unit | native | qtimers | speedup |',
        '|---|---|---|--:|--:|--:|',
    ];
    rows.forEach(function(row) {
        lines.push('| ' + [row.scenario.group, rowLabel(row, '\\*'), row.scenario.unit, formatCell(row.native, row.scenario.unit),
            formatCell(row.qtimers, row.scenario.unit), formatSpeedup(row)].join(' | ') + ' |');
    });
    lines.push('');
    notes(rows, opts).forEach(function(note) { lines.push(note.replace(/^\*/, '\\*') + '  ') });
    return lines.join('\n') + '\n';
}

function main( ) {
    var opts = parseArgs(process.argv.slice(2));
    var scenarios = loadScenarios(opts.only);
    if (opts.list) {
        scenarios.forEach(function(s) { console.log(qprintf.sprintf('%-28s %s: %s', s.id, s.group, s.label)) });
        return;
    }
    if (!scenarios.length) fail('no scenario matches --only ' + opts.only);

    var info = systemInfo(opts);
    var modes = ['native', 'qtimers'];
    var qtimersProblem = checkQtimers(opts);
    if (qtimersProblem) {
        console.log('WARNING: qtimers ' + qtimersProblem + '\nWARNING: measuring native timers only');
        modes = ['native'];
    }
    console.log('%s: %d scenarios x %d modes x %d rounds', describeRun(info, opts), scenarios.length, modes.length, opts.rounds);
    if (opts.quick) console.log(QUICK_CAVEAT + '\n');

    var started = Date.now();
    var rows = runAll(scenarios, modes, opts);
    printTable(rows, info, opts);

    // The files in results/ are what the README shows: only a full run of every scenario replaces
    // them.  A quick run's go where git does not look, whatever it ran.
    var resultsDir = opts.quick ? QUICK_RESULTS_DIR : RESULTS_DIR;
    var written = [];
    if (opts.only && !opts.quick) {
        console.log('--only: results/ left as it was');
    } else {
        fs.mkdirSync(resultsDir, { recursive: true });
        fs.writeFileSync(path.join(resultsDir, 'table.md'), markdownTable(rows, info, opts));
        written.push('table.md');
        if (opts.chart) {
            fs.writeFileSync(path.join(resultsDir, 'chart.svg'), chart.render(rows, {
                title: 'qtimers vs native timers, ' + info.node + (opts.quick ? ' (--quick: indicative only)' : ''),
                subtitle: describeMachine(info, opts),
            }));
            written.push('chart.svg');
        }
        console.log('wrote %s in %s', written.join(', '), path.relative(ROOT, resultsDir) + path.sep);
    }
    var seconds = (Date.now() - started) / 1000;
    console.log('total %s s', seconds.toFixed(1));
    if (opts.quick && !opts.only && seconds > 1.5 * QUICK_SECONDS) {
        console.log('--quick took longer than the %d s it takes on an idle machine: this one was busy, ' +
            'which also moved the numbers above', QUICK_SECONDS);
    }

    var failed = rows.filter(function(row) { return row.errors.length || row.warnings.length });
    if (failed.length) {
        console.log('\nPROBLEMS:');
        failed.forEach(function(row) {
            row.errors.concat(row.warnings).forEach(function(error) { console.log('  %s %s', row.scenario.id, error) });
        });
        process.exitCode = 1;
    }
}

// floor.js runs some of these rows in a third mode with the same children and arithmetic
module.exports = { loadScenarios: loadScenarios, runChild: runChild, systemInfo: systemInfo, median: median, advantage: advantage };

if (require.main === module) main();
