'use strict';
// `npm run test:node -- --mode node`: qtimers installed with Node's own setImmediate turn rule
// (only the immediates queued before a turn run in it), preloaded in place of index.js.
require('../../index.js');
setImmediate.maxTickDepth = 0;
