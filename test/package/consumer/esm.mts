// An ES module consumer of the packed qtimers, compiled by test/package/check.js under every
// TypeScript moduleResolution that has ES modules (node16, nodenext, bundler; under node10 as
// CommonJS output) and then run: the last line it prints is the JSON that check.js compares.
import { isInstalled } from 'qtimers/register';
import qtimers, { setTimeout as namedSetTimeout, currentTimestamp as namedTimestamp, install } from 'qtimers';
import type { InstallOptions, Timeout } from 'qtimers';
import standalone, { setImmediate as standaloneSetImmediate } from 'qtimers/standalone';
import { setTimeout as sleep } from 'qtimers/promises';
import 'qtimers/install';

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
  // @ts-expect-error maxTickDepth is a number, on the global function as on qtimers'
  setImmediate.maxTickDepth = '0';
}

const options: InstallOptions = { timersModule: true };
const handle: Timeout = namedSetTimeout(() => {}, 1000);
standalone.clearTimeout(handle);
standalone.clearImmediate(standaloneSetImmediate(() => {}));

sleep(1, 'slept').then((slept: string) => {
  let badKnob = '';
  try {
    (setImmediate as { maxTickDepth: unknown }).maxTickDepth = '0';
  } catch (err) {
    badKnob = (err as { code?: string }).code || 'no code';
  }
  console.log(JSON.stringify({
    installed: isInstalled() && install(options) === qtimers,
    sameApi: qtimers === standalone,
    globalIsOurs: globalThis.setTimeout === qtimers.setTimeout && globalThis.setImmediate === qtimers.setImmediate,
    knobsKept: setImmediate.maxTickDepth === depth && setImmediate.maxTurnMs === turnMs && setTimeout.exactStart === exact,
    timestamp: typeof now === 'number' && typeof namedTimestamp() === 'number',
    slept,
    badKnob,
  }));
});
