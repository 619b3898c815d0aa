// A consumer that only loads qtimers/standalone, compiled alone by test/package/check.js: the
// globals are left alone, so their types gain no knobs (the @ts-expect-error lines must fail).
import standalone = require('qtimers/standalone');

standalone.setImmediate.maxTickDepth = 0;
function neverCalled(): void {
  // @ts-expect-error without install the global setImmediate has no knobs
  setImmediate.maxTickDepth = 0;
  // @ts-expect-error nor is there a global currentTimestamp
  currentTimestamp();
}

console.log(JSON.stringify({ installed: standalone.isInstalled(), globalIsOurs: globalThis.setTimeout === standalone.setTimeout }));
