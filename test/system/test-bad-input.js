'use strict';
// Bad input gets exactly what Node gives, and never costs a timer: thousands of seeded junk calls
// (test/fixtures/junk/calls.js) made natively and with qtimers, each outcome compared, then
// ordinary timers that must all run; a native run against another native run is the control.
// QTIMERS_JUNK_SEED=<n> runs another seed (the seed is in every failure).

const path = require('path');
const child = require('../helpers/child');

const ROOT = path.resolve(__dirname, '..', '..');
const CALLS = path.join(__dirname, '..', 'fixtures', 'junk', 'calls.js');
const SEEDS = process.env.QTIMERS_JUNK_SEED ? [Number(process.env.QTIMERS_JUNK_SEED)] : [11, 12];
const COUNT = 5000;

function junkRun(t, seed, qtimers) {
  // the child's own watchdog is spawnSync's timeout
  const res = child.runFileJson(CALLS, { qtimers, args: [String(seed), String(COUNT)], env: { QTIMERS_ROOT: qtimers ? ROOT : '' }, timeout: 20000 });
  t.equal(res.status, 0, `seed ${seed} ${qtimers ? 'qtimers' : 'native'}: ${res.signal || ''} ${res.stderr.slice(-2000)}`);
  t.ok(res.json !== undefined, `seed ${seed} ${qtimers ? 'qtimers' : 'native'}: the run printed its outcomes: ${res.stdout.slice(-300)}`);
  return res.json;
}

/* the outcomes that differ, at most ten of them */
function differences(a, b) {
  const out = [];
  for (let i = 0; i < Math.max(a.outcomes.length, b.outcomes.length) && out.length < 10; i++) {
    if (a.outcomes[i] !== b.outcomes[i]) out.push(`${a.outcomes[i]}  <->  ${b.outcomes[i]}`);
  }
  return out;
}

const sorted = (list) => list.slice().sort();

module.exports = {
  'thousands of junk calls answer as Node\'s, and every ordinary timer still runs': function(t) {
    for (const seed of SEEDS) {
      const native = junkRun(t, seed, false);
      const control = junkRun(t, seed, false);
      const ours = junkRun(t, seed, true);
      if (!native || !control || !ours) continue;
      t.equal(native.outcomes.length, COUNT);
      t.deepEqual(differences(native, control), [], `seed ${seed}: the control, native against native`);
      t.ok(native.outcomes.filter((o) => /threw/.test(o)).length > COUNT / 10, `seed ${seed}: many calls throw`);
      t.ok(native.outcomes.filter((o) => /skipped/.test(o)).length < COUNT / 5, `seed ${seed}: few calls skipped`);
      t.deepEqual(differences(native, ours), [], `seed ${seed}: each call's outcome`);
      t.deepEqual(sorted(ours.warnings), sorted(native.warnings), `seed ${seed}: the warnings`);
      for (const [name, run] of [['native', native], ['qtimers', ours]]) {
        const missing = run.expected.filter((label) => !run.ran.includes(label));
        t.deepEqual(missing, [], `seed ${seed}, ${name}: every ordinary timer ran`);
      }
      t.deepEqual(sorted(ours.ran), sorted(native.ran), `seed ${seed}: what ran`);
      t.deepEqual(ours.resources, native.resources, `seed ${seed}: the active resources at the end`);
      t.strictEqual(ours.qtimers.installed, true, 'qtimers was in place');
      t.deepEqual([ours.qtimers.timeouts, ours.qtimers.immediates], [[0, 0], [0, 0]], `seed ${seed}: qtimers' own counts at the end`);
    }
    t.done();
  },

  'a foreign this handed to Timeout.prototype.ref loses no timer when a callback throws': function(t) {
    // Node's ref counts a foreign object as one more referenced timer, for good; the throwing
    // callback makes Node's timers callback return with nothing in its lists
    const program = `
      const out = { installed: typeof setTimeout(() => {}, 1)._flags === 'number', events: [] };
      Object.getPrototypeOf(setTimeout(() => {}, 1)).ref.call({});
      setTimeout(() => out.events.push('200 ms ran'), 200);
      process.on('uncaughtException', (e) => out.events.push('caught ' + e.message));
      setTimeout(() => { throw new Error('boom'); }, 20);
      process.on('exit', () => console.log(JSON.stringify(out)));
    `;
    const native = child.runJson(program, { qtimers: false });
    const ours = child.runJson(program);
    t.equal(native.status, 0, native.stderr);
    t.equal(ours.status, 0, ours.stderr);
    t.strictEqual(ours.json.installed, true, 'qtimers was in place');
    t.deepEqual(native.json.events, ['caught boom', '200 ms ran'], 'the control');
    t.deepEqual(ours.json.events, native.json.events);
    t.done();
  },
};
