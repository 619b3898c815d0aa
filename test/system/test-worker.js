'use strict';
// Worker threads: each has its own globals and its own copy of qtimers.  Requiring qtimers in a
// worker installs it there only; installing it in the main thread leaves workers on Node's.

const path = require('path');
const { Worker } = require('worker_threads');
const nodeTimers = require('timers');
const nodeTimersPromises = require('timers/promises');
const qt = require('../../lib/standalone');

const ROOT = path.resolve(__dirname, '..', '..');
const NAMES = ['setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'];

/* run `source` in a worker (CommonJS, with ROOT defined); resolves with its messages and exit code */
function runWorker(source) {
  return new Promise((resolve, reject) => {
    const messages = [];
    const worker = new Worker(`const ROOT = ${JSON.stringify(ROOT)};\n${source}`, { eval: true });
    worker.on('message', (message) => messages.push(message));
    worker.on('error', reject);
    worker.on('exit', (code) => resolve({ messages, code }));
  });
}

function snapshot() {
  return {
    globals: NAMES.map((name) => globalThis[name]),
    module: NAMES.map((name) => nodeTimers[name]),
    promises: [nodeTimersPromises.setTimeout, nodeTimersPromises.setImmediate, nodeTimersPromises.setInterval],
    timestamp: globalThis.currentTimestamp,
  };
}

// in the worker: is everything qtimers', or everything Node's?
const PROBE = `
  function probe(qtimers, promises) {
    const names = ${JSON.stringify(NAMES)};
    const timers = require('timers');
    const timersPromises = require('timers/promises');
    return {
      globals: names.filter((n) => globalThis[n] === qtimers[n]).length,
      module: names.filter((n) => timers[n] === qtimers[n]).length,
      promises: ['setTimeout', 'setImmediate', 'setInterval'].filter((n) => timersPromises[n] === promises[n]).length,
      knob: typeof globalThis.setTimeout.MIN_TIMEOUT,
      timestamp: typeof globalThis.currentTimestamp,
    };
  }
`;

module.exports = {
  tearDown: function(done) {
    qt.uninstall();
    done();
  },

  'requiring qtimers in a worker installs it there, and its timers run there': function(t) {
    const before = snapshot();
    runWorker(`
      ${PROBE}
      const { parentPort } = require('worker_threads');
      const qtimers = require(ROOT);
      const promises = require(ROOT + '/lib/promises');
      parentPort.postMessage(probe(qtimers, promises));
      const order = [];
      setImmediate(() => order.push('immediate'));
      setTimeout(() => order.push('timeout'), 30);   // well after the interval, even on a loaded machine
      const interval = setInterval(() => { order.push('interval'); clearInterval(interval); }, 1);
      require('timers/promises').setTimeout(60, 'promise').then((v) => {
        order.push(v);
        parentPort.postMessage(order);
      });
    `).then(({ messages, code }) => {
      t.equal(code, 0);
      t.deepEqual(messages[0], { globals: 6, module: 6, promises: 3, knob: 'number', timestamp: 'function' });
      const order = messages[1];
      t.deepEqual(order.slice().sort(), ['immediate', 'interval', 'promise', 'timeout']);
      // the immediate may come before or after the 1 ms interval, as with Node's own timers
      t.deepEqual(order.filter((what) => what !== 'immediate'), ['interval', 'timeout', 'promise'], 'in expiry order');
      t.deepEqual(snapshot(), before, 'the main thread\'s timers are as they were');
      t.strictEqual(qt.isInstalled(), false);
      t.done();
    }, (err) => t.done(err));
  },

  'installing in the main thread leaves a worker on Node\'s timers': function(t) {
    qt.install();
    runWorker(`
      ${PROBE}
      const { parentPort } = require('worker_threads');
      // what the worker sees before it loads qtimers: Node's, whatever the main thread did
      const before = probe(require(ROOT + '/lib/standalone'), require(ROOT + '/lib/promises'));
      parentPort.postMessage(before);
    `).then(({ messages, code }) => {
      t.equal(code, 0);
      t.deepEqual(messages[0], { globals: 0, module: 0, promises: 0, knob: 'undefined', timestamp: 'undefined' });
      t.strictEqual(globalThis.setTimeout, qt.setTimeout, 'still installed here');
      t.done();
    }, (err) => t.done(err));
  },

  'a worker whose only pending qtimers are unref\'d exits': function(t) {
    runWorker(`
      const { parentPort } = require('worker_threads');
      require(ROOT);
      setTimeout(() => parentPort.postMessage('timeout ran'), 1e6).unref();
      setInterval(() => parentPort.postMessage('interval ran'), 1e6).unref();
      require('timers/promises').setTimeout(1e6, null, { ref: false }).then(() => parentPort.postMessage('promise ran'));
      setTimeout(() => parentPort.postMessage('refed ran'), 1);
    `).then(({ messages, code }) => {
      t.equal(code, 0);
      t.deepEqual(messages, ['refed ran']);
      t.done();
    }, (err) => t.done(err));
  },

  'terminating a worker with pending qtimers ends it': function(t) {
    const worker = new Worker(`
      require(${JSON.stringify(ROOT)});
      setInterval(() => {}, 1);
      setTimeout(() => {}, 1e6);
      require('worker_threads').parentPort.postMessage('started');
    `, { eval: true });
    worker.on('message', () => worker.terminate());
    worker.on('error', (err) => t.done(err));
    worker.on('exit', (code) => {
      t.equal(code, 1, 'terminate() exits with code 1');
      t.done();
    });
  },
};
