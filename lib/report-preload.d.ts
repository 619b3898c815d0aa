// Type declarations for 'qtimers/report' (`node -r qtimers/report app.js`, `import 'qtimers/report'`):
// a side effect only, installing qtimers (hence its global knobs, global.d.ts) and printing
// qtimers.report() on SIGUSR2 and at exit; it exports nothing.

/// <reference types="node" />

import './global.js';

export {};
