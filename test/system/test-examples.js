'use strict';
// The original README's examples, each in its own process with require('qtimers') first.

const { run } = require('../helpers/child');

module.exports = {
  'exit in 1 second: the process ends by the timer, not before it': function(t) {
    const res = run(`
      const start = Date.now();
      require(ROOT);
      process.on('exit', (code) => console.log('exit', code, Date.now() - start >= 999));
      setTimeout(process.exit, 1000);
    `, { qtimers: false, expect: 'qtimers' });
    t.equal(res.status, 0, res.stderr);
    t.equal(res.stdout.trim(), 'exit 0 true');
    t.done();
  },

  'exit immediately: an unref()ed timer does not keep the process alive': function(t) {
    const res = run(`
      require(ROOT);
      const t = setTimeout(() => console.log('fired'), 1000);
      t.unref();
      process.on('exit', () => console.log('exit'));
    `, { qtimers: false, expect: 'qtimers' });
    t.equal(res.status, 0, res.stderr);
    t.equal(res.stdout.trim(), 'exit', 'exited without running the timer');
    t.done();
  },

  'write 100 dots': function(t) {
    const res = run(`
      require(ROOT);
      for (let i = 0; i < 100; i++) setImmediate(function() { process.stdout.write('.'); });
    `, { qtimers: false, expect: 'qtimers' });
    t.equal(res.status, 0, res.stderr);
    t.equal(res.stdout, '.'.repeat(100));
    t.done();
  },

  'loop a million times with setImmediate': function(t) {
    for (const depth of ['undefined', '0', '1', '100']) {
      const res = run(`
        require(ROOT);
        if (${depth} !== undefined) setImmediate.maxTickDepth = ${depth};
        let nleft = 1000000, calls = 0;
        function loop() { calls++; if (--nleft > 0) setImmediate(loop); }
        loop();
        process.on('exit', () => console.log(calls, nleft));
      `, { qtimers: false, expect: 'qtimers', timeout: 60000 });
      t.equal(res.status, 0, res.stderr);
      t.equal(res.stdout.trim(), '1000000 0', 'maxTickDepth ' + depth);
    }
    t.done();
  },

  'loop a million times with an argument': function(t) {
    const res = run(`
      require(ROOT);
      let last;
      function loop(nleft) { last = nleft; if (--nleft > 0) setImmediate(loop, nleft); }
      loop(1000000);
      process.on('exit', () => console.log(last));
    `, { qtimers: false, expect: 'qtimers', timeout: 60000 });
    t.equal(res.status, 0, res.stderr);
    t.equal(res.stdout.trim(), '1');
    t.done();
  },
};
