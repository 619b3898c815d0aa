'use strict';
// lib/execution-resource.js: async_hooks.executionAsyncResource() inside a timer's callback is
// that timer's own resource, as natively: state a callback keeps on it is not seen by its
// siblings.  The same program runs natively and with qtimers, and the answers are compared.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { runFileJson } = require('../helpers/child');

// Timeouts due together, an interval, immediates of one turn (queued from the main script and
// from a timeout's callback, with and without arguments), and a scope of the program's own inside a
// callback: each callback sets a property on its execution resource and reports what it found
// there and whether the resource is its handle.  `tracked`: an AsyncLocalStorage store is
// entered first (qtimers then carries an AsyncResource per timer).  Run as a script file with
// qtimers preloaded, as a program is (on Node >= 24 qtimers tracks context from the start
// otherwise, context.js).
const PROGRAM = `
const { executionAsyncResource, AsyncResource, AsyncLocalStorage } = require('async_hooks');
const tracked = process.argv[2] === 'tracked';
if (tracked) new AsyncLocalStorage().enterWith({});
const seen = [];
function visit(name, handle) {
  const resource = executionAsyncResource();
  seen.push({ name, found: resource.mine === undefined ? null : resource.mine, own: resource === handle });
  resource.mine = name;
}
const top = executionAsyncResource();
const handles = {};
for (const name of ['t1', 't2', 't3']) handles[name] = setTimeout(() => visit(name, handles[name]), 2);
let runs = 0;
handles.iv = setInterval(() => {
  visit('iv' + runs, handles.iv);
  if (++runs === 2) clearInterval(handles.iv);
}, 5);
// (immediates untracked only: tracked, on Node 24 under the test's probe, they and the
// timeouts shared one resource, open in docs/decisions.md)
if (!tracked) {
  handles.i1 = setImmediate(() => visit('i1', handles.i1));
  handles.i2 = setImmediate(() => {
    visit('i2', handles.i2);
    // a promise job after the callback: natively the callback's resource is no longer current
    Promise.resolve().then(() => seen.push({ name: 'i2-job', found: executionAsyncResource().mine || null }));
  });
  handles.i3 = setImmediate((arg) => visit(arg, handles.i3), 'i3');
  setTimeout(() => {
    handles.i4 = setImmediate(() => visit('i4', handles.i4));
    handles.i5 = setImmediate(() => visit('i5', handles.i5));
  }, 4);
}
handles.scoped = setTimeout(() => {
  const scope = new AsyncResource('scope');
  scope.runInAsyncScope(() => seen.push({ name: 'scope', own: executionAsyncResource() === scope }));
  visit('scoped', handles.scoped);
}, 3);
setTimeout(() => {
  console.log(JSON.stringify({
    installed: 'exactStart' in setTimeout,
    topLevel: executionAsyncResource() !== top ? 'differs' : 'same',
    seen: seen.sort((a, b) => (a.name < b.name ? -1 : 1)),
  }));
}, 40);
`;

function both(t, mode) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qtimers-resource-'));
  const file = path.join(dir, 'program.js');
  fs.writeFileSync(file, PROGRAM);
  let native, ours;
  try {
    native = runFileJson(file, { qtimers: false, args: [mode] });
    ours = runFileJson(file, { args: [mode] });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  t.strictEqual(native.status, 0, native.stderr);
  t.strictEqual(ours.status, 0, ours.stderr);
  t.strictEqual(native.json.installed, false);
  t.strictEqual(ours.json.installed, true, 'qtimers is in place');
  return { native: native.json, ours: ours.json };
}

module.exports = {
  'with no async context tracked, each callback\'s execution resource is its own handle, as natively': function(t) {
    const { native, ours } = both(t, 'none');
    // natively: nothing found from a sibling, each resource its handle (an interval's is the
    // same handle on each run, so its second run finds its first's)
    t.ok(native.seen.filter((s) => s.name !== 'scope' && s.name !== 'i2-job').every((s) => s.own), JSON.stringify(native.seen));
    t.deepEqual(ours.seen, native.seen);
    t.deepEqual(ours.topLevel, native.topLevel);
    t.done();
  },

  'with async context tracked, each callback still has a resource of its own': function(t) {
    const { native, ours } = both(t, 'tracked');
    // the resource is the timer's AsyncResource, which init hooks saw, not the handle: what a
    // callback finds there is as native
    const found = (seen) => seen.map((s) => [s.name, s.found === undefined ? null : s.found]);
    t.deepEqual(found(ours.seen), found(native.seen));
    t.ok(ours.seen.find((s) => s.name === 'scope').own, 'a scope of the program\'s own is its own');
    t.done();
  },
};
