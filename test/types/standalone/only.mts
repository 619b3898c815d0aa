// Type test, a program that loads only qtimers/standalone: compiled alone by test/system/test-types.js
// (`tsc -p test/types/standalone`), never run.  The standalone API leaves the globals alone, so
// their types gain nothing: each @ts-expect-error line must fail to compile.
import standalone, { setImmediate as standaloneSetImmediate } from 'qtimers/standalone';
import cjsStandalone = require('qtimers/standalone');

standalone.setTimeout.MIN_TIMEOUT = 1;
standaloneSetImmediate.maxTickDepth = 0;
cjsStandalone.setImmediate.maxTurnMs = 0;
const now: number = standalone.currentTimestamp();

// @ts-expect-error without install the global setImmediate has no knobs
setImmediate.maxTickDepth = 0;
// @ts-expect-error nor the global setTimeout
setTimeout.exactStart = true;
// @ts-expect-error and there is no global currentTimestamp
currentTimestamp();

export { now };
