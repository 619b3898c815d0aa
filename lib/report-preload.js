'use strict';
// `node -r qtimers/report app.js` (or require('qtimers/report') first thing): installs qtimers,
// as require('qtimers') does, and prints qtimers.report() to stderr at exit when a referenced
// timer is still pending (a process.exit() with work left, or an uncaught error), which is where
// a timer leak shows.  Two environment variables, read once at load:
// - QTIMERS_REPORT_SIGNAL=SIGUSR2 (any name of os.constants.signals) also prints it on that
//   signal, which then no longer ends the process.  Unset, no signal listener is added: a signal
//   does what it did (nodemon restarts an app with SIGUSR2).  Signals reach the main thread only.
// - QTIMERS_ORIGINS=1 (or true) calls qtimers.trackOrigins(true) at load, so the report says
//   where each group of timers was made.
// A value neither understands gets one warning (code QTIMERS_REPORT_ENV, main thread only) and is
// ignored.  The exit listener neither throws nor touches the exit code.  Exports nothing:
// qtimers.report() is on the API.
// It must never change what a signal does unless the user named it, and never keep a process
// alive.

const { isMainThread } = require('./builtins').workerThreads;
const qtimers = require('../index.js');
const { report } = require('./report');

const proc = process;
const env = proc.env;
const SIGNAL_VARIABLE = 'QTIMERS_REPORT_SIGNAL';
const ORIGINS_VARIABLE = 'QTIMERS_ORIGINS';

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

/* one warning about an environment variable, from the main thread only (workers share env) */
function warnAbout(variable, value, what) {
  if (isMainThread) proc.emitWarning(`${variable}=${JSON.stringify(value)} ${what}; it is ignored`, { code: 'QTIMERS_REPORT_ENV' });
}

/* QTIMERS_REPORT_SIGNAL: a signal name whose listener prints the report, or none */
function listenToSignal(value) {
  if (value === undefined || value === '') return;
  // os is loaded only here: a program's startup (and the order of its first timers) is as before
  if (!Object.prototype.hasOwnProperty.call(require('os').constants.signals, value)) {
    warnAbout(SIGNAL_VARIABLE, value, 'is not a signal name such as SIGUSR2');
    return;
  }
  if (!isMainThread) return;
  try {
    proc.on(value, printReport);
  } catch (err) {
    warnAbout(SIGNAL_VARIABLE, value, `names a signal no listener can catch (${err.message})`);
  }
}

/* QTIMERS_ORIGINS: '1' or 'true' turns origins on; '', '0' or 'false' leaves them off */
function trackOriginsIfAsked(value) {
  const text = value === undefined ? '' : value.toLowerCase();
  if (text === '1' || text === 'true') qtimers.trackOrigins(true);
  else if (text !== '' && text !== '0' && text !== 'false') warnAbout(ORIGINS_VARIABLE, value, 'is not 1, true, 0 or false');
}

trackOriginsIfAsked(env[ORIGINS_VARIABLE]);
listenToSignal(env[SIGNAL_VARIABLE]);
proc.on('exit', reportAtExit);
