'use strict';
// Preloaded first (`node -r probe.js ...`) into the children test/helpers/child.js runs: keeps
// Node's own setTimeout and, when the process exits, appends "PID true|false" to the file named
// by QTIMERS_TEST_PROBE: whether qtimers was in place then (loaded, isInstalled(), and the global
// setTimeout no longer Node's).  A comparison of native and qtimers proves nothing unless the
// qtimers run really ran on qtimers; the parent checks this line.  It must never print, load
// qtimers, or leave anything a program could notice beyond one 'exit' listener; it lives in the
// repository so lib/context.js still sees no module but the package's loaded before qtimers.

const file = process.env.QTIMERS_TEST_PROBE;
if (file) {
  const fs = require('fs');
  const path = require('path');
  const nodeSetTimeout = globalThis.setTimeout;
  const INSTALL = path.join(__dirname, '..', '..', 'lib', 'install.js');
  process.on('exit', () => {
    // a worker thread or a forked child inherits the preload: only this process's own line counts
    if (!require('worker_threads').isMainThread) return;
    const loaded = require.cache[INSTALL];
    const installed = loaded !== undefined && loaded.exports.isInstalled() === true &&
      globalThis.setTimeout !== nodeSetTimeout;
    fs.appendFileSync(file, `${process.pid} ${installed}\n`);
  });
}
