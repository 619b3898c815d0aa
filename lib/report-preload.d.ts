// Type declarations for 'qtimers/report' (`node -r qtimers/report app.js`, `import 'qtimers/report'`):
// a side effect only, installing qtimers (hence its global knobs, global.d.ts) and printing
// qtimers.report() at exit (and on the signal QTIMERS_REPORT_SIGNAL names); it exports nothing.

/// <reference types="node" />

import './global.js';

export {};
