'use strict';
// `node -r qtimers/report app.js` (or require('qtimers/report') first thing): installs qtimers,
// as require('qtimers') does, and prints qtimers.report() to stderr on SIGUSR2 and at exit when
// a referenced timer is still pending (a process.exit() with work left, or an uncaught error),
// which is where a timer leak shows.  The signal listener, as every signal listener of Node's,
// does not keep the process alive (but a SIGUSR2 no longer ends it); the exit listener neither
// throws nor touches the exit code.  Signals reach the main thread only: a worker that loads
// this gets the exit report alone.  Exports nothing: qtimers.report() is on the API.

const { isMainThread } = require('./builtins').workerThreads;
const qtimers = require('../index.js');
const { report } = require('./report');

const proc = process;

function printReport() {
  try {
    proc.stderr.write(report());
  } catch (err) {
    // stderr closed: a diagnostic must not end the program
  }
}

function reportAtExit() {
  let stats;
  try {
    stats = qtimers.stats();
  } catch (err) {
    return;
  }
  if (stats.immediates.refed + stats.timeouts.refed > 0) printReport();
}

if (isMainThread) proc.on('SIGUSR2', printReport);
proc.on('exit', reportAtExit);
