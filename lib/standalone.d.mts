// Type declarations for the qtimers API as an ES module: `import qtimers from 'qtimers/standalone'`
// gives the API object, and its members are named exports too.  index.d.mts adds, for the
// entries that install qtimers, what installing adds to the globals.
import qtimers from './standalone.js';

export default qtimers;
export import Timeout = qtimers.Timeout;
export import Immediate = qtimers.Immediate;
export import InstallOptions = qtimers.InstallOptions;
export import Stats = qtimers.Stats;
export import StatsOptions = qtimers.StatsOptions;
export import PendingTimer = qtimers.PendingTimer;
export import PendingOptions = qtimers.PendingOptions;
export import install = qtimers.install;
export import uninstall = qtimers.uninstall;
export import isInstalled = qtimers.isInstalled;
export import setImmediate = qtimers.setImmediate;
export import clearImmediate = qtimers.clearImmediate;
export import setTimeout = qtimers.setTimeout;
export import clearTimeout = qtimers.clearTimeout;
export import setInterval = qtimers.setInterval;
export import clearInterval = qtimers.clearInterval;
export import currentTimestamp = qtimers.currentTimestamp;
export import coarse = qtimers.coarse;
export import trackAsyncContext = qtimers.trackAsyncContext;
export import stats = qtimers.stats;
export import pending = qtimers.pending;
export import trackOrigins = qtimers.trackOrigins;
export import report = qtimers.report;
