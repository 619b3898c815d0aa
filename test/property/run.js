#!/usr/bin/env node
/*
 * run: the randomized property tests, by hand or from test/system/test-property.js.
 *
 *   node test/property/run.js [--runs N] [--seed S] [--exit-runs M] [--jobs J] [--verbose] [--dump DIR]
 *
 * Generates N programs (seeds S .. S+N-1; S random unless given) and runs every one of them,
 * each mode in its own child processes (J per mode, default 2, each running its share one
 * program after the other):
 *
 *   native      Node's timers: the control.  Every property must hold here; the "not early"
 *               tolerance is derived from these runs (Node's 1 ms quantisation, rounded up)
 *   q-node      qtimers (lib/standalone.js) as close to Node as its knobs go:
 *               setImmediate.maxTickDepth = 0 (Node's rule), setTimeout.exactStart = true (the
 *               delay counts from the call); without AsyncLocalStorage (no async context)
 *   q-default   qtimers installed over the globals with its defaults (a delay counts from its
 *               call, as in Node; a turn may run immediates queued while it runs, up to 1000
 *               and while it is younger than setImmediate.maxTurnMs), with AsyncLocalStorage
 *               stores
 *
 * then checks every log (check.js).  It also runs M programs (default 16) once each in a fresh
 * process per mode, to check that the process exits by itself exactly when no referenced timer
 * is left: not while one is armed, and not later (no timeout that was not due yet by then runs).  Prints a summary, and for each violated property the seeds that showed it and how to
 * rerun one of them (`--seed <seed> --runs 1`).  Exit code 1 when any property failed.
 *
 * Also: QTIMERS_PROPERTY_RUNS=5000 npm test (test/system/test-property.js reads it), and
 * QTIMERS_PROPERTY_SEED to fix the seed there.
 *
 * qnit loads every .js under test/: nothing runs on require, and the one export is non-enumerable.
 */
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const child = require('../helpers/child');
const { check, exitViolations } = require('./check');
const { Model } = require('./model');

const CHILD = path.join(__dirname, 'child.js');

const MODES = [
  { name: 'native', child: { mode: 'native' }, turnLimit: 0, earlyFrom: 'call' },
  { name: 'q-node', child: { mode: 'standalone', maxTickDepth: 0, exactStart: true, stores: false }, turnLimit: 0, earlyFrom: 'call' },
  // qtimers' defaults: every delay counts from its call, as in Node; a turn runs up to 1000
  // immediates queued while it runs, for at most setImmediate.maxTurnMs (README, Semantics)
  { name: 'q-default', child: { mode: 'installed' }, turnLimit: 1000, earlyFrom: 'call' },
];

let outFiles = 0;
let tmpDir = null;

function spawnChild(nodeBin, childOptions, timeoutMs, done) {
  if (tmpDir === null) {
    tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'qtimers-property-'));
    const dir = tmpDir;
    process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  const outFile = path.join(tmpDir, 'out-' + ++outFiles);
  childOptions = Object.assign({}, childOptions, { out: outFile });
  child.spawn(nodeBin, [CHILD, JSON.stringify(childOptions)], timeoutMs, (r) => {
    try {
      r.out += fs.readFileSync(outFile, 'utf8');
      fs.unlinkSync(outFile);
    } catch (e) {
      r.err += '\n(no output file: ' + e.message + ')';
    }
    done(r);
  });
}

function parseOutput(out) {
  const programs = new Map();
  let end = null;
  for (const line of out.split('\n')) {
    if (line.startsWith('@@') && !line.endsWith('}')) continue;   // cut short: the child was killed
    if (line.startsWith('@@P ')) {
      const p = JSON.parse(line.slice(4));
      programs.set(p.seed, p);
    } else if (line.startsWith('@@L ')) {
      const l = JSON.parse(line.slice(4));
      const p = programs.get(l.seed);
      if (p) p.log.push(...l.events);
    } else if (line.startsWith('@@END ')) {
      end = JSON.parse(line.slice(6));
    }
  }
  return { programs, end };
}

// run fn(i, cb) for i in 0..n-1, at most `parallel` at a time
function pool(n, parallel, fn, done) {
  let started = 0;
  let finished = 0;
  if (n === 0) return done();
  const launch = () => {
    while (started < n && started - finished < parallel) {
      const i = started++;
      fn(i, () => {
        finished += 1;
        if (finished === n) done();
        else launch();
      });
    }
  };
  launch();
}

/*
 * options: { runs, seed, exitRuns, jobs, nodeBin, modes (names), log (function for progress) }
 * done(null, report): report = { seed, runs, tolerance, modes: { name: { programs, stalls,
 *   violations: { property: [{ seed, message }] }, stats } }, exit: { name: { programs,
 *   violations: [...] } }, failed: [messages] }
 */
function runProperties(options, done) {
  const runs = options.runs || 300;
  const seed = options.seed !== undefined ? options.seed : Math.floor(Math.random() * 1e9);
  const jobs = options.jobs || 2;
  const exitRuns = options.exitRuns !== undefined ? options.exitRuns : 16;
  const nodeBin = options.nodeBin || process.execPath;
  const modes = MODES.filter((m) => !options.modes || options.modes.includes(m.name));
  const say = options.log || (() => {});
  const report = { seed, runs, jobs, tolerance: null, node: null, modes: {}, exit: {}, failed: [] };
  let waiting = 2;      // the batch runs and the exit runs
  const joined = () => {
    if (--waiting === 0) done(null, report);
  };

  // batch runs: every mode split in `jobs` children, all started together
  const tasks = [];
  for (const mode of modes) {
    report.modes[mode.name] = { programs: 0, stalls: 0, violations: {}, stats: { maxEarly: -Infinity, maxEarlySection: -Infinity, fires: 0, throws: 0, creates: 0, revived: 0, turnStrict: undefined }, logs: new Map(), errors: [] };
    const per = Math.ceil(runs / jobs);
    for (let j = 0; j < jobs; j++) {
      const first = seed + j * per;
      const count = Math.min(per, seed + runs - first);
      if (count > 0) tasks.push({ mode, first, count });
    }
  }
  // a child gets generous time: every program takes well under 0.2 s, a stalled one 2 s
  const started = Date.now();
  pool(tasks.length, tasks.length, (i, next) => {
    const task = tasks[i];
    const childOptions = Object.assign({}, task.mode.child, { first: task.first, count: task.count });
    spawnChild(nodeBin, childOptions, 60000 + task.count * 500, (res) => {
      const r = report.modes[task.mode.name];
      const parsed = parseOutput(res.out);
      for (const [s, p] of parsed.programs) r.logs.set(s, p.log);
      if (parsed.end) {
        r.stalls += parsed.end.stalls;
        report.node = parsed.end.node;
      }
      if (res.code !== 0 || !parsed.end) {
        r.errors.push(`child ${JSON.stringify(childOptions)} ${res.timedOut ? 'timed out' : 'exited with ' + (res.signal || res.code)}${parsed.end ? '' : ' before finishing'}: ${res.err.trim().split('\n').slice(0, 5).join(' | ')}`);
      }
      say(`  ${task.mode.name} seeds ${task.first}..${task.first + task.count - 1}: ${parsed.programs.size} programs`);
      next();
    });
  }, () => {
    report.batchSeconds = (Date.now() - started) / 1000;
    checkAll();
    joined();
  });
  // the exit runs meanwhile: they are mostly process start-up, the batches mostly waiting
  runExitPrograms();

  function checkAll() {
    // derive the tolerance from the native control: its earliest firing, rounded up to whole ms
    // (libuv's clock ticks in whole milliseconds)
    const nativeReport = report.modes.native;
    let tolerance = 1;
    if (nativeReport) {
      let maxEarly = -Infinity;
      for (const [s, log] of nativeReport.logs) {
        const { stats } = check(null, log, { tolerance: Infinity, turnLimit: null });
        if (stats.maxEarly > maxEarly) {
          maxEarly = stats.maxEarly;
          report.nativeMaxEarlySeed = s;
          if (options.dumpDir) {
            fs.mkdirSync(options.dumpDir, { recursive: true });
            fs.writeFileSync(path.join(options.dumpDir, 'native-earliest.json'), JSON.stringify({ seed: s, maxEarly, log }, null, 1));
          }
        }
      }
      tolerance = Math.max(0, Math.ceil(maxEarly - 1e-9));
      report.nativeMaxEarly = maxEarly;
    }
    report.tolerance = tolerance;
    for (const mode of modes) {
      const r = report.modes[mode.name];
      for (const [s, log] of r.logs) {
        r.programs += 1;
        const { violations, stats } = check(null, log, { tolerance, turnLimit: mode.turnLimit, earlyFrom: mode.earlyFrom, batch: mode.batch });
        r.stats.maxEarly = Math.max(r.stats.maxEarly, stats.maxEarly);
        r.stats.maxEarlySection = Math.max(r.stats.maxEarlySection, stats.maxEarlySection);
        r.stats.fires += stats.fires;
        r.stats.throws += stats.throws;
        r.stats.creates += stats.creates;
        r.stats.revived += stats.revived;
        // the turn property's power: would Node's rule (limit 0) have failed this log?
        if (mode.turnLimit > 0) {
          const strict = check(null, log, { tolerance: Infinity, turnLimit: 0 }).violations;
          if (strict.some((v) => v.property === 'turn')) r.stats.turnStrict = (r.stats.turnStrict || 0) + 1;
        }
        for (const v of violations) {
          if (!r.violations[v.property]) r.violations[v.property] = [];
          r.violations[v.property].push({ seed: s, message: v.message });
        }
        if (violations.length > 0 && options.dumpDir && (report.dumped = (report.dumped || 0) + 1) <= 50) {
          fs.mkdirSync(options.dumpDir, { recursive: true });
          fs.writeFileSync(path.join(options.dumpDir, `${mode.name}-${s}.json`),
            JSON.stringify({ mode: mode.name, seed: s, violations, log }, null, 1));
        }
      }
      const expected = runs;
      if (r.programs !== expected) r.errors.push(`${r.programs} of ${expected} programs reported`);
      for (const prop of Object.keys(r.violations)) {
        const list = r.violations[prop];
        report.failed.push(`${mode.name}: ${prop} failed in ${list.length} program(s), e.g. seed ${list[0].seed}: ${list[0].message}`);
      }
      for (const e of r.errors) report.failed.push(`${mode.name}: ${e}`);
      delete r.logs;
    }
  }

  // the process exits by itself exactly when no referenced timer is left
  function runExitPrograms() {
    const exitTasks = [];
    for (const mode of modes) {
      report.exit[mode.name] = { programs: 0, violations: [] };
      for (let k = 0; k < exitRuns; k++) exitTasks.push({ mode, seed: seed + k });
    }
    pool(exitTasks.length, 2, (i, next) => {
      const task = exitTasks[i];
      const childOptions = Object.assign({}, task.mode.child, { first: task.seed, count: 1, exit: true });
      spawnChild(nodeBin, childOptions, 10000, (res) => {
        const r = report.exit[task.mode.name];
        r.programs += 1;
        const fail = (message) => r.violations.push({ seed: task.seed, message });
        if (res.timedOut) fail('the process did not exit within 10 s');
        else if (res.code !== 0) fail(`the process exited with ${res.signal || res.code}: ${res.err.trim().split('\n')[0]}`);
        const parsed = parseOutput(res.out);
        const p = parsed.programs.get(task.seed);
        if (!p) {
          if (!res.timedOut) fail('no log at exit');
        } else {
          const held = p.armedAtExit.filter((a) => a.refed);
          if (held.length > 0) fail(`exited with referenced timers still armed: ${held.map((a) => a.id).join(', ')}`);
          const late = exitViolations(p.log, { earlyFrom: task.mode.earlyFrom, batch: task.mode.batch });
          for (const message of late) fail(message);
          if ((late.length > 0 || held.length > 0) && options.dumpDir) {
            fs.mkdirSync(options.dumpDir, { recursive: true });
            fs.writeFileSync(path.join(options.dumpDir, `exit-${task.mode.name}-${task.seed}.json`), JSON.stringify({ late, held, log: p.log }, null, 1));
          }
          // and the model, replayed, agrees with what the child saw
          const model = new Model();
          for (const e of p.log) model.apply(e);
          if (model.pendingCount() !== p.armedAtExit.length) fail('replayed model disagrees with the armed timers at exit');
        }
        next();
      });
    }, () => {
      for (const mode of modes) {
        for (const v of report.exit[mode.name].violations) {
          report.failed.push(`${mode.name}: exit failed for seed ${v.seed}: ${v.message}`);
        }
      }
      joined();
    });
  }
}

/*
 * The checkers' own test: run programs on deliberately broken timers (broken.js) and report,
 * for each fault, which properties failed.  done(null, { kind: { expected, programs, failed:
 * [property...], errors } })
 */
function runBroken(options, done) {
  const { BROKEN } = require('./broken');
  const nodeBin = options.nodeBin || process.execPath;
  const runs = options.runs || 40;
  const kinds = Object.keys(BROKEN);
  const result = {};
  pool(kinds.length, options.parallel || 4, (i, next) => {
    const kind = kinds[i];
    const r = result[kind] = { expected: BROKEN[kind], programs: 0, failed: [], errors: [] };
    const t0 = Date.now();
    const exit = BROKEN[kind] === 'exit';
    const childOptions = { mode: 'broken', broken: kind, first: 1, count: exit ? 1 : runs, stallMs: 300, exit };
    if (exit) {
      // the process-exit property: a few programs, each in its own process
      const seeds = [1, 2, 3, 4, 5, 6, 7, 8];
      pool(seeds.length, 2, (k, nextSeed) => {
        spawnChild(nodeBin, Object.assign({}, childOptions, { first: seeds[k] }), 10000, (res) => {
          const p = parseOutput(res.out).programs.get(seeds[k]);
          r.programs += 1;
          if (p && p.armedAtExit.some((a) => a.refed || a.refed === undefined)) {
            // the model says referenced, yet the process exited
            const model = new Model();
            for (const e of p.log) model.apply(e);
            if (p.armedAtExit.some((a) => model.state(a.id).refed)) r.failed.push('exit');
          }
          nextSeed();
        });
      }, () => {
        r.failed = Array.from(new Set(r.failed));
        next();
      });
      return;
    }
    spawnChild(nodeBin, childOptions, 60000, (res) => {
      const parsed = parseOutput(res.out);
      if (!parsed.end) r.errors.push(`child ended without finishing: ${res.err.trim().split('\n')[0]}`);
      const props = new Set();
      for (const p of parsed.programs.values()) {
        r.programs += 1;
        for (const v of check(null, p.log, { tolerance: options.tolerance || 1, turnLimit: 0 }).violations) props.add(v.property);
      }
      r.failed = Array.from(props).sort();
      if (res.timedOut) r.errors.push('timed out');
      r.seconds = (Date.now() - t0) / 1000;
      next();
    });
  }, () => done(null, result));
}

function formatReport(report) {
  const lines = [];
  lines.push(`property tests: ${report.runs} programs per mode, seeds ${report.seed}..${report.seed + report.runs - 1}, node ${report.node}`);
  lines.push(`not-early tolerance ${report.tolerance} ms (native control fired at most ${report.nativeMaxEarly !== undefined ? report.nativeMaxEarly.toFixed(2) : '?'} ms early, seed ${report.nativeMaxEarlySeed})`);
  for (const name of Object.keys(report.modes)) {
    const r = report.modes[name];
    const props = Object.keys(r.violations);
    const strict = r.stats.turnStrict !== undefined ? `, ${r.stats.turnStrict} ran immediates of the next turn early (maxTickDepth)` : '';
    const mode = MODES.find((m) => m.name === name);
    const early = mode && mode.earlyFrom === 'section'
      ? `max early ${r.stats.maxEarlySection.toFixed(2)} ms from the section's start (${r.stats.maxEarly.toFixed(2)} ms from the call)`
      : `max early ${r.stats.maxEarly.toFixed(2)} ms`;
    lines.push(`  ${name}: ${r.programs} programs, ${r.stats.creates} timers, ${r.stats.fires} callbacks, ${r.stats.throws} throws, ${early}${strict}, ${r.stalls} stalls: ` +
      (props.length === 0 && r.errors.length === 0 ? 'all properties hold' : 'FAILED ' + props.map((p) => `${p} (${r.violations[p].length})`).join(', ')));
    for (const p of props) {
      const seeds = r.violations[p].map((v) => v.seed);
      lines.push(`    ${p}: seeds ${Array.from(new Set(seeds)).slice(0, 10).join(', ')}`);
      lines.push(`      e.g. ${r.violations[p][0].message}`);
    }
    for (const e of r.errors) lines.push(`    ${e}`);
    const x = report.exit[name];
    if (x) lines.push(`    exit: ${x.programs} programs in fresh processes, ${x.violations.length === 0 ? 'all exited exactly when no referenced timer was left' : 'FAILED: ' + x.violations.map((v) => `seed ${v.seed}: ${v.message}`).join('; ')}`);
  }
  if (report.failed.length > 0) {
    const first = report.failed[0].match(/seed (\d+)/);
    lines.push(`rerun one program: node test/property/run.js --seed ${first ? first[1] : report.seed} --runs 1 --verbose`);
    lines.push(`print it: node test/property/generate.js ${first ? first[1] : report.seed}`);
  }
  return lines.join('\n');
}

// --show MODE --seed S: run one program in one mode and print its log and what check() says
function show(modeName, seed) {
  const mode = MODES.find((m) => m.name === modeName);
  if (!mode || !(seed >= 0)) {
    console.error('--show needs one of ' + MODES.map((m) => m.name).join(', ') + ' and --seed');
    process.exit(2);
  }
  spawnChild(process.execPath, Object.assign({}, mode.child, { first: seed, count: 1 }), 60000, (res) => {
    const p = parseOutput(res.out).programs.get(seed);
    if (!p) return console.log('no log: ' + res.err);
    p.log.forEach((e, i) => console.log(String(i).padStart(3), JSON.stringify(e)));
    const { violations } = check(null, p.log, { tolerance: 1, turnLimit: mode.turnLimit, earlyFrom: mode.earlyFrom, batch: mode.batch });
    for (const v of violations) console.log(`${v.property}: ${v.message}`);
    if (res.err) console.log(res.err);
  });
}

function main() {
  const argv = process.argv.slice(2);
  const opts = { runs: Number(process.env.QTIMERS_PROPERTY_RUNS) || 300, log: console.log };
  if (process.env.QTIMERS_PROPERTY_SEED) opts.seed = Number(process.env.QTIMERS_PROPERTY_SEED);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs') opts.runs = Number(argv[++i]);
    else if (a === '--seed') opts.seed = Number(argv[++i]);
    else if (a === '--exit-runs') opts.exitRuns = Number(argv[++i]);
    else if (a === '--jobs') opts.jobs = Number(argv[++i]);
    else if (a === '--modes') opts.modes = argv[++i].split(',');
    else if (a === '--verbose') opts.verbose = true;
    else if (a === '--show') opts.show = argv[++i];
    else if (a === '--broken') opts.broken = true;
    else if (a === '--dump') opts.dumpDir = argv[++i];
    else if (a === '--help' || a === '-h') {
      console.log('usage: node test/property/run.js [--runs N] [--seed S] [--exit-runs M] [--jobs J] [--modes native,q-node,q-default] [--verbose] [--dump DIR]\n' +
        '       node test/property/run.js --show native|q-node|q-default --seed S    (one program\'s log)\n' +
        '       node test/property/run.js --broken    (the checkers against deliberately broken timers)');
      return;
    } else {
      console.error('unknown option ' + a);
      process.exit(2);
    }
  }
  if (opts.show) return show(opts.show, opts.seed);
  if (opts.broken) {
    return runBroken({}, (err, result) => {
      let bad = 0;
      for (const [kind, r] of Object.entries(result)) {
        const caught = r.failed.includes(r.expected);
        if (!caught) bad += 1;
        console.log(`${kind.padEnd(12)} ${r.programs} programs, expected ${r.expected}: ${caught ? 'caught' : 'MISSED'}; failed: ${r.failed.join(', ') || '-'} ${r.errors.join('; ')} (${r.seconds} s)`);
      }
      process.exitCode = bad > 0 ? 1 : 0;
    });
  }
  if (!opts.verbose) opts.log = () => {};
  runProperties(opts, (err, report) => {
    console.log(formatReport(report));
    if (opts.verbose) {
      for (const name of Object.keys(report.modes)) {
        for (const [prop, list] of Object.entries(report.modes[name].violations)) {
          for (const v of list) console.log(`${name} ${prop} seed ${v.seed}: ${v.message}`);
        }
      }
    }
    process.exitCode = report.failed.length > 0 ? 1 : 0;
  });
}

if (require.main === module) main();

Object.defineProperties(module.exports, {
  runProperties: { value: runProperties },
  runBroken: { value: runBroken },
  formatReport: { value: formatReport },
  MODES: { value: MODES },
});
