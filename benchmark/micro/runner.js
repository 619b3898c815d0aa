/*
 * runner: running the benchmark scenarios (benchmark/micro/scenarios/*.js) in child processes.
 *
 * Owns the scenario table and the children: each scenario runs in a fresh process, natively,
 * with qtimers preloaded (`node -r <root>/index.js`), or required on the first line of the
 * main module (`--load require`: first-line.js), or with a floor (benchmark/floor/), strictly
 * one child at a time, alternating modes within each round and which mode runs first from one
 * round to the next, so that a noisy neighbour, or a machine that warms or cools over a run,
 * hurts every mode alike.  A child prints one `RESULT {json}` line; a child that fails, prints
 * none or runs out of time is an error of that round, never a number.
 * It must never summarize or print a table (statistics.js and report.js do), and never run two
 * children at once.
 */
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const childProcess = require('child_process');
const { fail } = require('./options');
const { advantage } = require('../shared/statistics');

const ROOT = path.resolve(__dirname, '..', '..');
const QTIMERS = path.join(ROOT, 'index.js');
const FLOOR = path.join(__dirname, '..', 'floor', 'install.js');     // the floors' modes (floor/run.js)
const EXACT_FLOOR = path.join(__dirname, '..', 'floor', 'exact-install.js');
const FIRST_LINE = path.join(__dirname, 'first-line.js');    // --load require's main module
const FAMILIES = ['basics', 'primitives', 'cpu', 'server', 'timeouts', 'memory', 'scaling'];

// the scenario table, in family order; reading it does not run anything
function loadScenarios(only) {
  const list = [];
  for (const family of FAMILIES) {
    const file = path.join(__dirname, 'scenarios', family + '.js');
    const table = require(file);
    for (const name of Object.keys(table)) {
      const id = family + '/' + name;
      const def = table[name];
      if (only && !only.test(id) && !only.test(def.label)) continue;
      // a row that names node options but gives none would silently run without them
      if ('nodeArgs' in def && !(Array.isArray(def.nodeArgs) && def.nodeArgs.length > 0)) {
        fail(id + ': nodeArgs is ' + JSON.stringify(def.nodeArgs) + ', not a list of node options');
      }
      list.push({
        id, file, name, group: def.group, label: def.label,
        unit: def.unit, better: def.better, nodeArgs: def.nodeArgs || [],
      });
    }
  }
  return list;
}

function childArgs(scenario, mode, opts) {
  const args = scenario.nodeArgs.slice();
  if (mode === 'qtimers' && opts.load === 'require') args.push(FIRST_LINE, opts.qtimers || QTIMERS);
  else if (mode === 'qtimers') args.push('-r', opts.qtimers || QTIMERS);
  else if (mode === 'floor') args.push('-r', FLOOR);
  else if (mode === 'exact') args.push('-r', EXACT_FLOOR);
  args.push(scenario.file, scenario.name);
  if (opts.quick) args.push('--quick');
  if (opts.als) args.push('--als');
  // maxTickDepth is a qtimers knob; native runs keep node's own semantics
  if (mode === 'qtimers' && opts.depth !== undefined) args.push('--depth', String(opts.depth));
  return args;
}

// run one scenario in a fresh process; returns { value, ... } or { error }
function runChild(scenario, mode, opts) {
  const child = childProcess.spawnSync(opts.node, childArgs(scenario, mode, opts), {
    cwd: __dirname, encoding: 'utf8', timeout: opts.quick ? 20000 : 60000, killSignal: 'SIGKILL',
    maxBuffer: 16 * 1024 * 1024,
  });
  const resultLine = (child.stdout || '').split('\n').filter((line) => /^RESULT /.test(line)).pop();
  if (child.error && child.error.code === 'ETIMEDOUT') return { error: 'timed out' };
  if (child.error) return { error: child.error.message };
  if (child.status !== 0 || !resultLine) {
    let why = child.signal ? 'killed by ' + child.signal : 'exit code ' + child.status;
    if (!resultLine) why += ', no RESULT line';
    // the thrown error's message if there is one, else whatever was printed last
    const stderrLines = (child.stderr || '').trim().split('\n');
    const message = stderrLines.filter((line) => /^\w*Error\b/.test(line))[0] || stderrLines.pop();
    return { error: why + (message ? ': ' + message.trim() : '') };
  }
  return JSON.parse(resultLine.slice('RESULT '.length));
}

// spawn a quick child to see whether the library loads and installs itself
function checkQtimers(opts) {
  const entry = opts.qtimers || QTIMERS;
  if (!fs.existsSync(entry)) return 'not found: ' + entry;
  const child = childProcess.spawnSync(opts.node, ['-r', entry, '-p', 'typeof setImmediate.maxTickDepth'],
    { encoding: 'utf8', timeout: 10000 });
  if (child.status !== 0) return 'preloading ' + entry + ' fails:\n' + (child.stderr || child.error);
  if (child.stdout.trim() !== 'number') return 'preloading ' + entry + ' did not install setImmediate.maxTickDepth';
  return null;
}

/* a results file's suffix: '-node<major>' for a run of another Node binary than this process's
   (`version` as systemInfo() names it), '' for this one's */
function otherNode(nodePath, version) {
  return nodePath === process.execPath ? '' : '-node' + /v(\d+)/.exec(version)[1];
}

function systemInfo(opts) {
  const child = childProcess.spawnSync(opts.node, ['-p', 'process.version + " " + process.arch'], { encoding: 'utf8' });
  if (child.status !== 0) fail('--node ' + opts.node + ': cannot run it (' + (child.error || child.stderr.trim()) + ')');
  const version = child.stdout.trim();
  const cpus = os.cpus();
  return { node: 'node ' + version, cpu: cpus[0].model.trim(), cores: cpus.length };
}

/*
 * every scenario in every mode, for opts.rounds rounds; onMeasured(round, scenario, values,
 * ratio) after each scenario's round.  Returns per scenario the values of every round.
 */
function runAll(scenarios, modes, opts, onMeasured) {
  const results = scenarios.map((scenario) => ({
    scenario, native: [], qtimers: [], ratios: [], errors: [], warnings: [], seconds: [],
    callbackRate: { native: [], qtimers: [] },
  }));
  for (let round = 1; round <= opts.rounds; round++) {
    // which build runs first alternates by round (native first in round 1), as bench:apps does
    const order = round % 2 ? modes : modes.slice().reverse();
    for (const result of results) {
      const values = {};
      const rates = {};
      for (const mode of order) {
        const outcome = runChild(result.scenario, mode, opts);
        if (outcome.error) {
          result.errors.push(mode + ' round ' + round + ': ' + outcome.error);
          continue;
        }
        values[mode] = outcome.value;
        result[mode].push(outcome.value);
        if (outcome.seconds) result.seconds.push(outcome.seconds);
        if (outcome.callbackRate !== undefined) {
          rates[mode] = outcome.callbackRate;
          result.callbackRate[mode].push(outcome.callbackRate);
        }
        if (outcome.alsStoreLost) result.warnings.push(mode + ' round ' + round + ': AsyncLocalStorage store lost');
      }
      let ratio;
      if (values.native !== undefined && values.qtimers !== undefined) {
        ratio = advantage(result.scenario, values.native, values.qtimers, rates);
        result.ratios.push(ratio);
      }
      onMeasured(round, result.scenario, values, ratio);
    }
  }
  return results;
}

module.exports = { ROOT, QTIMERS, EXACT_FLOOR, loadScenarios, runChild, checkQtimers, systemInfo, otherNode, runAll };
