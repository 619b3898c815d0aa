/*
 * load/child: one measured process of `npm run bench:load`.
 *
 *     node [-r qtimers] benchmark/load/child.js MODE
 *
 * MODE: 'empty' does nothing (the process's start and exit are what the parent times); 'require'
 * requires qtimers on its first line and reports how long the require took; 'first' arms the
 * process's first timer, a 5 ms setTimeout, and reports how long the call took and how long
 * after the call its callback ran.  It prints one line, `RESULT {...}` (ms, and `qtimers`: whether
 * qtimers was in place when it reported), and exits.
 * It must never arm a timer before the one it measures, nor measure with one.
 */
'use strict';

const hrtime = process.hrtime.bigint;
const mode = process.argv[2];
const QTIMERS = require('path').resolve(__dirname, '..', '..');
const FIRST_DELAY_MS = 5;

function ms(from, to) {
  return Number(to - from) / 1e6;
}

function report(result) {
  result.qtimers = typeof setImmediate.maxTickDepth === 'number';
  process.stdout.write('RESULT ' + JSON.stringify(result) + '\n');
}

if (mode === 'empty') {
  report({});
} else if (mode === 'require') {
  const before = hrtime();
  require(QTIMERS);
  report({ requireMs: ms(before, hrtime()) });
} else if (mode === 'first') {
  const before = hrtime();
  setTimeout(function first() {
    report({ callMs: ms(before, called), firedAfterMs: ms(before, hrtime()) });
  }, FIRST_DELAY_MS);
  const called = hrtime();
} else {
  process.stderr.write('usage: node benchmark/load/child.js empty|require|first\n');
  process.exitCode = 2;
}
