'use strict';
// lib/section.js: the one end-of-section signal.  Every registered handler runs once per
// section that asked, after the section's own code, from one microtask however many asked; a
// section with no request runs none; inside a qtimers drain the end comes once, when the drain
// ends, never between its callbacks.  Each case runs in a fresh process, so that the handlers
// it registers are the only ones besides qtimers' own.

const { runJson } = require('../helpers/child');

// counts the microtasks section.js queues: natives.queueMicrotask is read when it loads
const COUNTING = `
  const natives = require(ROOT + '/lib/natives');
  const queue = natives.queueMicrotask;
  let microtasks = 0;
  natives.queueMicrotask = function queueMicrotask(fn) { microtasks += 1; return queue(fn); };
  const section = require(ROOT + '/lib/section');
`;

module.exports = {
  'handlers run once per section that asked, in order, from one microtask': function(t) {
    const res = runJson(COUNTING + `
      const log = [];
      section.atEnd(() => log.push('a'));
      section.atEnd(() => log.push('b'));
      section.needsEnd();
      Promise.resolve().then(() => log.push('promise queued after the first request'));
      section.needsEnd();
      section.needsEnd();
      log.push('section code');
      setTimeout(() => {
        const first = { log: log.splice(0), microtasks };
        // a section that asks nothing ends with no handler run and no microtask
        Promise.resolve().then(() => log.push('promise'));
        setTimeout(() => {
          const idle = { log: log.splice(0), microtasks };
          section.needsEnd();
          setTimeout(() => console.log(JSON.stringify({ first, idle, again: { log, microtasks } })), 5);
        }, 5);
      }, 5);
    `, { qtimers: false });
    t.strictEqual(res.status, 0, res.stderr);
    const out = res.json;
    t.deepEqual(out.first.log, ['section code', 'a', 'b', 'promise queued after the first request']);
    t.equal(out.first.microtasks, 1, 'three requests, one microtask');
    t.deepEqual(out.idle.log, ['promise']);
    t.equal(out.idle.microtasks, 1, 'no request, no microtask');
    t.deepEqual(out.again.log, ['a', 'b']);
    t.equal(out.again.microtasks, 2);
    t.done();
  },

  'inside a qtimers drain the section ends once, when the drain ends': function(t) {
    const res = runJson(COUNTING + `
      const qt = require(ROOT + '/lib/standalone');
      const log = [];
      section.atEnd(() => log.push('end'));
      qt.setTimeout(() => {
        const before = microtasks;
        for (let i = 1; i <= 3; i++) {
          qt.setImmediate(() => {
            log.push('immediate ' + i);
            section.needsEnd();
            Promise.resolve().then(() => log.push('promise ' + i));
          });
        }
        qt.setImmediate(() => setImmediate(() => {
          console.log(JSON.stringify({ log, during: microtasks - before }));
        }));
        log.length = 0;
      }, 1);
    `, { qtimers: false });
    t.strictEqual(res.status, 0, res.stderr);
    const { log, during } = res.json;
    // the ends before the immediates' drain are the timeout drain's and the setImmediate calls'
    const drain = log.slice(log.indexOf('immediate 1'));
    t.deepEqual(drain, ['immediate 1', 'promise 1', 'immediate 2', 'promise 2', 'immediate 3', 'promise 3', 'end']);
    t.equal(during, 0, 'no microtask queued by the requests made inside drains');
    t.done();
  },

  'drainSerial() changes when a drain starts, and only then': function(t) {
    const res = runJson(`
      const section = require(ROOT + '/lib/section');
      const qt = require(ROOT + '/lib/standalone');
      const before = section.drainSerial();
      section.needsEnd();
      Promise.resolve().then(() => {
        const afterSection = section.drainSerial();
        let inDrain = null;
        qt.setImmediate(() => { inDrain = section.drainSerial(); });
        qt.setTimeout(() => {
          const inTimeout = section.drainSerial();
          console.log(JSON.stringify({ before, afterSection, inDrain, inTimeout }));
        }, 1);
      });
    `, { qtimers: false });
    t.equal(res.status, 0, res.stderr);
    const out = res.json;
    t.equal(out.afterSection, out.before, 'a section end is not a drain');
    t.notEqual(out.inDrain, out.before, 'an immediates drain');
    t.notEqual(out.inTimeout, out.inDrain, 'a timeouts drain');
    t.done();
  },
};
