// Type test, ES module side: compiled by `tsc -p test/types` (test/system/test-types.js), never run.
// A line marked @ts-expect-error must not compile: a declaration too loose fails the test too.
import qtimers, {
  setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate,
  currentTimestamp, trackAsyncContext, install, uninstall, isInstalled, Timeout, Immediate,
} from 'qtimers';
import type { InstallOptions } from 'qtimers';
import standalone, { setTimeout as standaloneSetTimeout } from 'qtimers/standalone';
import * as promises from 'qtimers/promises';
import { scheduler } from 'qtimers/promises';
import 'qtimers/install';
import 'qtimers/register';
import * as nodeTimers from 'node:timers';
import * as nodeTimersPromises from 'node:timers/promises';
import { promisify } from 'node:util';

// handles are Node's handle types
const timeout: NodeJS.Timeout = setTimeout((a: string, b: number) => {}, 10, 'a', 1);
const interval: NodeJS.Timeout = setInterval(() => {}, 10);
const immediate: NodeJS.Immediate = setImmediate((s: string) => {}, 's');
const typedTimeout: Timeout = timeout;
const typedImmediate: Immediate = immediate;
timeout.unref().ref().refresh().hasRef();
const id: number = timeout[Symbol.toPrimitive]();
clearTimeout(timeout);
clearTimeout(id);
clearTimeout(null);
clearInterval(interval);
clearImmediate(immediate);
nodeTimers.clearTimeout(standalone.setTimeout(() => {}));
nodeTimers.clearImmediate(qtimers.setImmediate(() => {}));
if ((timeout as unknown) instanceof Timeout) typedTimeout.close();
if ((immediate as unknown) instanceof Immediate) typedImmediate.unref();

// drop-in: assignable where Node's functions are expected
const asNodeSetTimeout: typeof nodeTimers.setTimeout = setTimeout;
const asNodeSetInterval: typeof nodeTimers.setInterval = setInterval;
const asNodeSetImmediate: typeof nodeTimers.setImmediate = setImmediate;
const asNodeClearTimeout: typeof nodeTimers.clearTimeout = clearTimeout;
const asNodeClearInterval: typeof nodeTimers.clearInterval = clearInterval;
const asNodeClearImmediate: typeof nodeTimers.clearImmediate = clearImmediate;
const asGlobalSetTimeout: typeof globalThis.setTimeout = standaloneSetTimeout;
const asNodePromises: typeof nodeTimersPromises = promises;

// a single void argument may be left out, as with Node's
const slept: Promise<void> = new Promise<void>((resolve) => setTimeout(resolve, 10));

// the knobs
setTimeout.MIN_TIMEOUT = 0;
setTimeout.MAX_TIMEOUT = 1000;
setImmediate.maxTickDepth = 0;
setTimeout.exactStart = true;
const knobs: number[] = [qtimers.setTimeout.MIN_TIMEOUT, qtimers.setTimeout.MAX_TIMEOUT, qtimers.setImmediate.maxTickDepth];

// install and friends return the API
const options: InstallOptions = { timersModule: false };
const api: typeof qtimers = install(options).uninstall();
const installed: boolean = isInstalled() && api.isInstalled();
const now: number = currentTimestamp();
trackAsyncContext();

// util.promisify knows the promise forms
const sleep: Promise<string> = promisify(setTimeout)(10, 'value');
const next: Promise<number> = promisify(setImmediate)(1);

// qtimers/promises
async function awaitables(): Promise<void> {
  const value: string = await promises.setTimeout(10, 'v', { signal: AbortSignal.abort(), ref: false });
  const nothing: void = await promises.setImmediate();
  for await (const tick of promises.setInterval(10, 42)) {
    const n: number = tick;
    break;
  }
  await scheduler.wait(10, { signal: new AbortController().signal });
  await scheduler.yield();
}

// what must not type check
// @ts-expect-error the knobs are numbers
setTimeout.MIN_TIMEOUT = '1';
// @ts-expect-error so is maxTickDepth
setImmediate.maxTickDepth = null;
// @ts-expect-error exactStart is a boolean
setTimeout.exactStart = 1;
// @ts-expect-error the callback is a function
setTimeout('code', 10);
// @ts-expect-error the extra arguments are the callback's
setTimeout((a: string) => {}, 10, 1);
// @ts-expect-error an immediate cannot be refreshed
immediate.refresh();
// @ts-expect-error a timeout is not an immediate
clearImmediate(timeout);
// @ts-expect-error timersModule is a boolean
install({ timersModule: 'no' });
// @ts-expect-error the handle classes are not constructible
new Timeout();
// @ts-expect-error the resolved value has the value's type
const wrong: Promise<number> = promises.setTimeout(10, 'v');

export { asNodeSetTimeout, asNodeSetInterval, asNodeSetImmediate, asNodeClearTimeout, asNodeClearInterval,
  asNodeClearImmediate, asGlobalSetTimeout, asNodePromises, slept, knobs, installed, now, sleep, next, awaitables, wrong };
