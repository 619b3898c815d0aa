// Type test, the globals: compiled by `tsc -p test/types` (test/system/test-types.js), never run.
// Importing an entry that installs qtimers ('qtimers' here, esm.mts and cjs.cts too) types its
// knobs on the global timer functions, which are then qtimers' own, and the global
// currentTimestamp, as the README's `setImmediate.maxTickDepth = 0` needs.
import 'qtimers';

setImmediate.maxTickDepth = 0;
setImmediate.maxTurnMs = 5;
setTimeout.MIN_TIMEOUT = 1;
setTimeout.MAX_TIMEOUT = 2 ** 31 - 1;
setTimeout.exactStart = true;
globalThis.setImmediate.maxTickDepth = -10;
const depth: number = setImmediate.maxTickDepth;
const turn: number = globalThis.setImmediate.maxTurnMs;
const exact: boolean = setTimeout.exactStart;
const now: number = currentTimestamp() + globalThis.currentTimestamp();

// the functions are still @types/node's: handles, promisify, the other globals
const handle: NodeJS.Timeout = setTimeout(() => {}, setTimeout.MIN_TIMEOUT);
const promised: typeof import('node:timers/promises').setTimeout = setTimeout.__promisify__;
clearTimeout(handle);

// what must not type check
// @ts-expect-error maxTickDepth is a number: a string is refused at run time too
setImmediate.maxTickDepth = '0';
// @ts-expect-error maxTurnMs is a number
setImmediate.maxTurnMs = '5';
// @ts-expect-error MIN_TIMEOUT is a number
setTimeout.MIN_TIMEOUT = '';
// @ts-expect-error exactStart is a boolean
setTimeout.exactStart = 'false';
// @ts-expect-error the knobs are on setTimeout and setImmediate, not on setInterval
setInterval.MIN_TIMEOUT = 1;
// @ts-expect-error currentTimestamp takes no argument
currentTimestamp(1);

export { depth, turn, exact, now, promised };
