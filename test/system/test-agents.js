'use strict';
// qtimers beside an instrumentation package that wraps the timers (zone.js, a dev dependency:
// it replaces the global and the `timers` module's timer functions with its own, which call
// what they replaced, as APM agents that carry context through timers do), in both load
// orders, by require() and by -r, each compared with the same program run with zone.js alone
// (test/fixtures/agents/zone.js).  Loaded after the agent, qtimers installs nothing and says so
// once (QTIMERS_NOT_INSTALLED), and the program runs as without it; loaded first, it is what
// the agent wraps, with no warning, and the agent's zones propagate as they do natively.  And
// install()'s warning on its own: once for a wrapper, never while a test's fakes hold the timers.

const path = require('path');
const { runFileJson, runJson, ROOT } = require('../helpers/child');

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'agents', 'zone.js');
const ZONE = require.resolve('zone.js/node');
const CODE = 'QTIMERS_NOT_INSTALLED';

/* the fixture in one load order; nodeArgs: preloads */
function zoneRun(order, nodeArgs, expect) {
  // the probe's check: qtimers is in place only where it loaded before zone.js
  if (expect === undefined) expect = order === 'qtimers-first' ? 'qtimers' : 'native';
  return runFileJson(FIXTURE, { qtimers: false, expect, args: [order], nodeArgs });
}

function printedWarnings(stderr) {
  return (stderr.match(/\[QTIMERS_[A-Z_]+\] Warning: .*/g) || []);
}

/*
 * runs: label -> a run; each must share with the control that it ended by itself with exit code
 * 0 and the same zones seen; then check(res, label)
 */
function eachSameAsAgentAlone(t, runs, control, check) {
  for (const label of Object.keys(runs)) {
    const res = runs[label];
    t.ok(!res.error && res.signal === null, `${label}: ended by itself: ${res.error} ${res.signal}`);
    t.equal(res.status, 0, `${label}: ${res.stderr}`);
    t.ok(res.json, `${label}: a result line: ${res.stdout}`);
    t.deepEqual(res.json.log, control.json.log, `${label}: each callback saw the zone it sees with zone.js alone`);
    check(res, label);
  }
}

module.exports = {
  'zone.js loaded before qtimers: one QTIMERS_NOT_INSTALLED warning; the program runs as with zone.js alone': function(t) {
    const control = zoneRun('agent');
    t.equal(control.status, 0, control.stderr);
    t.ok(control.json.log.includes('timeout: request 7'), 'the control: zone.js carried its zone through setTimeout');
    t.deepEqual(printedWarnings(control.stderr), [], 'the control: no warning');
    const runs = {
      'require(): zone.js, then qtimers (install() called again)': zoneRun('agent-first'),
      '-r zone.js/node -r qtimers': zoneRun('preloaded', ['-r', ZONE, '-r', ROOT]),
    };
    eachSameAsAgentAlone(t, runs, control, (res, label) => {
      t.strictEqual(res.json.installed, false, `${label}: isInstalled() is false`);
      t.strictEqual(res.json.ranByQtimers, 0, `${label}: qtimers ran nothing`);
      t.deepEqual(res.json.warnings, [CODE], `${label}: one warning event, with its code`);
      const printed = printedWarnings(res.stderr);
      t.equal(printed.length, 1, `${label}: one warning printed: ${res.stderr}`);
      t.ok(printed[0].includes('[QTIMERS_NOT_INSTALLED] Warning: qtimers installed nothing: setImmediate, clearImmediate, ' +
        'setTimeout, clearTimeout, setInterval and clearInterval are not Node\'s own'), printed[0]);
      t.ok(printed[0].includes('`node -r qtimers -r <agent> app.js`, or require(\'qtimers\') before the agent'), printed[0]);
    });
    t.done();
  },

  'zone.js loaded after qtimers: no warning; it wraps qtimers\' functions and its zones propagate as with zone.js alone': function(t) {
    const control = zoneRun('agent');
    const runs = {
      'require(): qtimers, then zone.js': zoneRun('qtimers-first'),
      '-r qtimers -r zone.js/node': zoneRun('preloaded', ['-r', ROOT, '-r', ZONE], 'qtimers'),
    };
    eachSameAsAgentAlone(t, runs, control, (res, label) => {
      t.strictEqual(res.json.installed, true, `${label}: isInstalled() is true`);
      t.strictEqual(res.json.underZone, true, `${label}: zone.js's setTimeout, setInterval and setImmediate call qtimers'`);
      // every line of the log is one timer's callback: all of them ran on qtimers
      t.equal(res.json.ranByQtimers, res.json.log.length, `${label}: the callbacks ran on qtimers`);
      t.deepEqual(res.json.warnings, [], `${label}: no warning`);
      t.deepEqual(printedWarnings(res.stderr), [], `${label}: nothing printed`);
    });
    t.done();
  },

  'install() warns once for a wrapper of Node\'s timers, never while a test\'s fakes hold them': function(t) {
    const res = runJson(`
      const codes = [];
      process.on('warning', (w) => codes.push(w.code));
      const nodeSetTimeout = setTimeout;
      globalThis.setTimeout = function setTimeout(fn, ms) { return nodeSetTimeout(fn, ms); };
      const q = require(ROOT);
      q.install();
      q.install();
      const installed = q.isInstalled();
      setTimeout(() => console.log(JSON.stringify({ installed, codes })), 1);
    `, { qtimers: false });
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json, { installed: false, codes: [CODE] });
    const printed = printedWarnings(res.stderr);
    t.equal(printed.length, 1, res.stderr);
    t.ok(printed[0].includes('qtimers installed nothing: setTimeout is not Node\'s own'), printed[0]);
    // a sinon clock (jest's and vitest's modern fake timers) and node:test's mock timers
    const fakes = {
      sinon: "const clock = require('@sinonjs/fake-timers').withGlobal(globalThis).install(); const off = () => clock.uninstall();",
      'node:test': "const { mock } = require('node:test'); mock.timers.enable(); const off = () => mock.timers.reset();",
    };
    for (const name of Object.keys(fakes)) {
      const faked = runJson(`
        const codes = [];
        process.on('warning', (w) => codes.push(w.code));
        ${fakes[name]}
        const q = require(ROOT);
        const installed = q.isInstalled();
        off();
        setTimeout(() => console.log(JSON.stringify({ installed, codes })), 1);
      `, { qtimers: false });
      t.equal(faked.status, 0, name + ': ' + faked.stderr);
      t.strictEqual(faked.json.installed, false, name + ': installed nothing');
      t.deepEqual(faked.json.codes.filter((c) => /^QTIMERS_/.test(c)), [], name + ': no warning event');
      t.deepEqual(printedWarnings(faked.stderr), [], name + ': no warning printed');
    }
    t.done();
  },
};
