'use strict';
// util.inspect (console.log) of qtimers handles: the kind, the delay, whether it repeats, whether
// it keeps the process alive, where it is in its life and its callback; never the internals.

const util = require('util');
const qt = require('../lib/standalone');

const ONE_LINE = { breakLength: Infinity };

function show(handle, options) {
  return util.inspect(handle, Object.assign({}, ONE_LINE, options));
}

module.exports = {
  'a timeout shows its delay, ref and state through its life': function(t) {
    const timer = qt.setTimeout(function work() {
      t.equal(show(timer), "Timeout { delay: 2, repeat: false, ref: true, state: 'running', callback: [Function: work] }");
      qt.setImmediate(() => {
        t.equal(show(timer), "Timeout { delay: 2, repeat: false, ref: true, state: 'done', callback: [Function: work] }");
        t.done();
      });
    }, 2);
    t.equal(show(timer), "Timeout { delay: 2, repeat: false, ref: true, state: 'pending', callback: [Function: work] }");
    timer.unref();
    t.equal(show(timer), "Timeout { delay: 2, repeat: false, ref: false, state: 'pending', callback: [Function: work] }");
    timer.ref();
  },

  'a cleared timeout says so and no longer holds its callback': function(t) {
    const timer = qt.setTimeout(() => {}, 1000, 'argument');
    qt.clearTimeout(timer);
    t.equal(show(timer), "Timeout { delay: 1000, repeat: false, ref: true, state: 'cleared', callback: null }");
    t.done();
  },

  'an interval is shown as one, pending again between runs': function(t) {
    let runs = 0;
    const interval = qt.setInterval(function tick() {
      runs += 1;
      t.equal(show(interval), "Interval { delay: 1, repeat: true, ref: true, state: 'running', callback: [Function: tick] }");
      if (runs === 1) {
        qt.setImmediate(() => t.ok(show(interval).includes("state: 'pending'"), show(interval)));
        return;
      }
      qt.clearInterval(interval);
      t.equal(show(interval), "Interval { delay: 1, repeat: true, ref: true, state: 'cleared', callback: null }");
      t.done();
    }, 1);
    t.equal(show(interval), "Interval { delay: 1, repeat: true, ref: true, state: 'pending', callback: [Function: tick] }");
  },

  'an immediate shows ref and state': function(t) {
    const pending = qt.setImmediate(function soon() {});
    t.equal(show(pending), "Immediate { ref: true, state: 'pending', callback: [Function: soon] }");
    pending.unref();
    t.equal(show(pending), "Immediate { ref: false, state: 'pending', callback: [Function: soon] }");
    const cleared = qt.setImmediate(() => {});
    qt.clearImmediate(cleared);
    t.equal(show(cleared), "Immediate { ref: false, state: 'cleared', callback: null }");
    qt.setImmediate(() => {
      t.equal(show(pending), "Immediate { ref: false, state: 'done', callback: null }");
      t.done();
    });
  },

  'no internal field shows, whatever the options': function(t) {
    const handles = [qt.setTimeout(() => {}, 10, 'a', 'b'), qt.setInterval(() => {}, 10), qt.setImmediate(() => {}, 'c')];
    for (const handle of handles) {
      for (const options of [{}, { showHidden: true }, { depth: null }, { depth: 0 }, { colors: true }, { compact: false }]) {
        const text = util.inspect(handle, options);
        t.ok(/^(Timeout|Interval|Immediate) \{/.test(text), text);
        t.ok(!/\b_[a-zA-Z]|Symbol\(|\[TimersList\]|asyncId/.test(text), text);
      }
    }
    qt.clearTimeout(handles[0]);
    qt.clearInterval(handles[1]);
    qt.clearImmediate(handles[2]);
    t.done();
  },

  'the view nests in objects and arrays, follows the colors option, and formats with %o and %O': function(t) {
    const timer = qt.setTimeout(function work() {}, 50);
    t.equal(util.inspect({ timer }, ONE_LINE), "{ timer: Timeout { delay: 50, repeat: false, ref: true, state: 'pending', callback: [Function: work] } }");
    t.equal(util.inspect([timer, timer], ONE_LINE).split('Timeout {').length, 3);
    t.ok(util.inspect(timer, { colors: true }).includes('\u001b[33m50\u001b[39m'), 'the delay is coloured as a number');
    t.ok(util.format('%o', timer).startsWith('Timeout {'));
    t.ok(util.format('%O', timer).startsWith('Timeout {'));
    t.ok(util.format('%s', { timer }).length > 0);
    // a multi-line view is indented with the object around it
    const nested = util.inspect({ outer: { timer } }, { breakLength: 40 });
    t.ok(/\n {4}timer: Timeout \{\n {6}delay: 50,\n/.test(nested), nested);
    qt.clearTimeout(timer);
    t.done();
  },

  'the installed global functions make the same handles': function(t) {
    qt.install();
    try {
      const timer = setTimeout(function work() {}, 20);
      const immediate = setImmediate(function soon() {});
      t.equal(show(timer), "Timeout { delay: 20, repeat: false, ref: true, state: 'pending', callback: [Function: work] }");
      t.equal(show(immediate), "Immediate { ref: true, state: 'pending', callback: [Function: soon] }");
      clearTimeout(timer);
      clearImmediate(immediate);
    } finally {
      qt.uninstall();
    }
    t.done();
  },
};
