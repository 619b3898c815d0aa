/*
 * Clock safety, in child processes with qtimers installed (test/fixtures/clock/*):
 *   - timers are scheduled on a monotonic clock: replacing Date.now with one that jumps an hour
 *     ahead, then an hour behind, neither fires a timer early nor stalls one (Node's own timers
 *     run the same script as the control)
 *   - currentTimestamp() keeps returning epoch ms close to the real wall clock (Date.now() read
 *     before the replacement plus monotonic time elapsed since, or the real Date.now() beside
 *     it, the nearer: the two part when the system adjusts its clock), not the jumped one
 *   - without a jump, currentTimestamp() is within 1 ms of Date.now() read just before and just
 *     after it, in every kind of callback; also in nextTick callbacks and late in a long callback
 * The children run in before(), which qnit does not time out.
 */
'use strict';

const assert = require('assert');
const path = require('path');
const childProcess = require('child_process');

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'clock');
const { offReal } = require('../fixtures/clock/jump');
const results = {};

function run(name, file, args, done) {
  childProcess.execFile(process.execPath, [path.join(FIXTURES, file)].concat(args), { timeout: 15000 }, (err, stdout, stderr) => {
    const lines = String(stdout).trim().split('\n');
    let json = null;
    try { json = JSON.parse(lines[lines.length - 1]); } catch (e) { /* below */ }
    results[name] = { err, json, stdout, stderr };
    done();
  });
}

function result(name) {
  const r = results[name];
  assert.ok(!r.err && r.json, `${name}: ${r.err ? r.err.message : 'no result'} ${r.stdout} ${r.stderr}`);
  return r.json;
}

module.exports = {
  before: function (done) {
    let left = 3;
    const joined = () => { if (--left === 0) done(); };
    run('jump native', 'jump.js', ['native'], joined);
    run('jump qtimers', 'jump.js', ['qtimers'], joined);
    run('timestamp', 'timestamp.js', [], joined);
  },

  'a wall-clock jump of +-1 hour neither fires timers early nor stalls them': function (t) {
    for (const impl of ['native', 'qtimers']) {
      const r = result('jump ' + impl);
      t.equal(r.impl, impl);
      t.equal(r.jumps.length, 2, impl + ': jumped twice');
      t.equal(r.timers.length, 8, impl + ': every timer scheduled');
      for (const tm of r.timers) t.ok(tm.fired > 0, `${impl}: ${tm.id} fired`);
      assert.deepStrictEqual(r.problems, [], impl);
    }
    t.done();
  },

  'currentTimestamp() follows the real wall clock, not the jumped Date.now()': function (t) {
    const r = result('jump qtimers');
    t.ok(r.stamps.length >= 10, r.stamps.length + ' timestamps taken');
    const jumped = r.stamps.filter((s) => Math.abs(Math.abs(s.dateNowOff) - 3600e3) < 100);
    t.ok(jumped.length >= 5, `${jumped.length} of them while Date.now() was an hour off`);
    const off = r.stamps.filter((s) => offReal(s) > 2);
    assert.deepStrictEqual(off, [], 'currentTimestamp() more than 2 ms off the real wall clock');
    t.done();
  },

  'currentTimestamp() without a jump: within 1 ms of Date.now() in fresh callbacks': function (t) {
    const s = result('timestamp').samples;
    for (const context of ['main', 'immediate', 'promise', 'timeout', 'interval']) {
      t.ok(s[context] && s[context].n > 0, context + ' sampled');
      assert.deepStrictEqual(s[context].outside, [], `${context}: samples outside [Date.now() before - 1, after + 1]`);
    }
    t.done();
  },

  'currentTimestamp() without a jump: within 1 ms of Date.now() in nextTicks and late in long callbacks': function (t) {
    const s = result('timestamp').samples;
    for (const context of ['nextTick', 'late in a long timeout callback', 'late in a long immediate callback']) {
      t.ok(s[context] && s[context].n > 0, context + ' sampled');
      assert.deepStrictEqual(s[context].outside, [], `${context}: samples outside [Date.now() before - 1, after + 1]`);
    }
    t.done();
  },
};
