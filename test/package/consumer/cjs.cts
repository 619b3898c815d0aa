// A CommonJS consumer of the packed qtimers, compiled by test/package/check.js under every
// TypeScript moduleResolution it supports (as cjs.cts, or cjs.ts under node10) and then run: the
// last line it prints is the JSON that check.js compares.  Type errors fail the check too.
import qtimers = require('qtimers');
import standalone = require('qtimers/standalone');
import promises = require('qtimers/promises');
import install = require('qtimers/install');
import register = require('qtimers/register');
import { setTimeout as namedSetTimeout, currentTimestamp as namedTimestamp } from 'qtimers';

// installing typed the knobs on the global functions, and the global currentTimestamp
const depth: number = setImmediate.maxTickDepth;
const turnMs: number = setImmediate.maxTurnMs;
const exact: boolean = setTimeout.exactStart;
setImmediate.maxTickDepth = 0;
setImmediate.maxTurnMs = 0;
setTimeout.exactStart = !exact;
setImmediate.maxTickDepth = depth;
setImmediate.maxTurnMs = turnMs;
setTimeout.exactStart = exact;
setTimeout.MIN_TIMEOUT = 1;
setTimeout.MAX_TIMEOUT = 2 ** 31 - 1;
const now: number = currentTimestamp();
function neverCalled(): void {
  // @ts-expect-error exactStart is a boolean, on the global function as on qtimers'
  setTimeout.exactStart = 'false';
}

const handle: NodeJS.Timeout = namedSetTimeout(() => {}, 1000);
standalone.clearTimeout(handle);
const immediate: NodeJS.Immediate = qtimers.setImmediate(() => {});
install.clearImmediate(immediate);

promises.setTimeout(1, 'slept').then((slept: string) => {
  let badKnob = '';
  try {
    (setTimeout as { exactStart: unknown }).exactStart = 'false';
  } catch (err) {
    badKnob = (err as { code?: string }).code || 'no code';
  }
  console.log(JSON.stringify({
    installed: register.isInstalled(),
    sameApi: qtimers === standalone && qtimers === install && qtimers === register,
    globalIsOurs: globalThis.setTimeout === qtimers.setTimeout && globalThis.setImmediate === qtimers.setImmediate,
    knobsKept: setImmediate.maxTickDepth === depth && setImmediate.maxTurnMs === turnMs && setTimeout.exactStart === exact,
    timestamp: typeof now === 'number' && typeof namedTimestamp() === 'number',
    slept,
    badKnob,
  }));
});
