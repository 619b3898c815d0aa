'use strict';
// node test/mutants/plant.js [--keep | --check] [NAME...]
// (--check: only say whether each bug's `from` text is still in its file exactly once)
// Plants each bug below, one at a time, in a scratch copy of the repository (the tracked files,
// node_modules linked; $QTIMERS_MUTANTS_DIR or the system's temp directory), runs the test
// files that should catch it, and prints, per bug, the tests that failed: a bug no test catches
// says so.  The suite proves its worth by this; the copy is removed unless --keep.
// Exit status 1 if any bug went uncaught.  Slow (a minute or two per bug): not part of npm test.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const ROOT = path.resolve(__dirname, '../..');

// name -> { file, from, to, tests }: `from` must occur in `file` exactly once
const MUTANTS = {
  'install() replaces nothing': {
    file: 'lib/install.js',
    from: '  if (saved === null) saved = [];\n',
    to: '  if (saved === null) saved = [];\n  if (saved.length === 0) return qtimers;\n',
    tests: ['system/test-timing', 'system/test-ids', 'system/test-context', 'system/test-async-hooks',
      'system/test-otel', 'system/test-errors', 'unit/test-report'],
  },
  'every timeout 2 ms late': {
    file: 'lib/timeout-arming.js',
    from: '  store.append(timer, msecs);\n  if (timer._flags & REFED) countRef();\n  wantDriverBy(start + msecs);',
    to: '  store.append(timer, msecs + 2);\n  if (timer._flags & REFED) countRef();\n  wantDriverBy(start + msecs + 2);',
    tests: ['system/test-timing'],
  },
  'every timeout 1 ms late': {
    file: 'lib/timeout-arming.js',
    from: '  store.append(timer, msecs);\n  if (timer._flags & REFED) countRef();\n  wantDriverBy(start + msecs);',
    to: '  store.append(timer, msecs + 1);\n  if (timer._flags & REFED) countRef();\n  wantDriverBy(start + msecs + 1);',
    tests: ['system/test-timing'],
  },
  'an interval drifts +1 ms per period': {
    file: 'lib/timeout-drain.js',
    from: '  timer._idleStart = start;\n  settled().append(timer, Math.trunc(timer._idleTimeout));',
    to: '  timer._idleStart = start + 1;\n  settled().append(timer, Math.trunc(timer._idleTimeout));',
    tests: ['system/test-timing'],
  },
  'a NaN delay means 2 ms': {
    file: 'lib/timers.js',
    from: '    after = limits.min;\n  }\n  return after;',
    to: '    after = after !== after ? 2 : limits.min;\n  }\n  return after;',
    tests: ['system/test-timing'],
  },
  'equal expiry: the later start first': {
    file: 'lib/timeout-store.js',
    from: 'a.expiry === b.expiry && a.start < b.start',
    to: 'a.expiry === b.expiry && a.start > b.start',
    tests: ['unit/test-timeout-store'],
  },
  'same delay: a linked list takes new timers at its front': {
    file: 'lib/timeout-list.js',
    from: '    const tail = this._idlePrev;\n    timer._idlePrev = tail;\n    timer._idleNext = this;\n    tail._idleNext = timer;\n    this._idlePrev = timer;',
    to: '    const head = this._idleNext;\n    timer._idleNext = head;\n    timer._idlePrev = this;\n    head._idlePrev = timer;\n    this._idleNext = timer;',
    tests: ['unit/test-timeout-store'],
  },
  'same delay and start: a new timer goes ahead of the one before it': {
    file: 'lib/timeout-list.js',
    from: '    const tail = this._idlePrev;\n    timer._idlePrev = tail;',
    to: '    let tail = this._idlePrev;\n    if (tail !== this && tail._idleStart === timer._idleStart) tail = tail._idlePrev;\n' +
      '    timer._idlePrev = tail;\n    timer._idleNext = tail._idleNext;\n    tail._idleNext._idlePrev = timer;\n    tail._idleNext = timer;\n    return;',
    tests: ['unit/test-timeout-store'],
  },
  'setImmediate.maxTickDepth defaults to -100': {
    file: 'lib/immediates.js',
    from: '  maxTickDepth: -1000,',
    to: '  maxTickDepth: -100,',
    tests: ['unit/test-immediates'],
  },
  'setImmediate.maxTurnMs defaults to 0.5': {
    file: 'lib/immediates.js',
    from: '  maxTurnMs: 0.05,',
    to: '  maxTurnMs: 0.5,',
    tests: ['unit/test-immediates'],
  },
  'after a throwing timeout, no resume: the rest waits for the next timers phase': {
    file: 'lib/timeout-resume.js',
    from: '  if (section.drainSerial() !== resumeSerial) {',
    to: '  if (section.drainSerial() !== resumeSerial || resumeNow === resumeNow) {',
    tests: ['system/test-errors'],
  },
  'clearTimeout and clearInterval do nothing to an interval': {
    file: 'lib/timeouts.js',
    from: '  if (f & CLEARED) return;\n  if (f & DESTROYED) {\n    // fired for good',
    to: '  if (f & (CLEARED | REPEAT)) return;\n  if (f & DESTROYED) {\n    // fired for good',
    tests: ['unit/test-timers', 'unit/test-timeouts'],
  },
  'a timeout\'s unref() does nothing': {
    file: 'lib/handles.js',
    from: '    if (isTimeout(this)) timeouts.unrefTimeout(this);\n',
    to: '    if (isTimeout(this)) return this;\n',
    tests: ['unit/test-timers', 'system/test-examples'],
  },
  'nextTicks are not drained between timeout callbacks': {
    file: 'lib/timeout-drain.js',
    from: '      if (ticksOwed) {\n        if (!context.ticksInTurn(runTicks)) break;',
    to: '      if (ticksOwed && !ticksOwed) {\n        if (!context.ticksInTurn(runTicks)) break;',
    tests: ['system/test-errors', 'system/test-property'],
  },
  'coarse: a timer left in an earlier slot is handed over as soon as it is due': {
    file: 'lib/coarse.js',
    from: '      if (time <= slot.time) {',
    to: '      if (expiry <= now) {',
    tests: ['unit/test-coarse'],
  },
  'coarse: due timers met out of order are handed over unsorted': {
    file: 'lib/coarse.js',
    from: '    if (ordered) settled().appendChain(first, last, COARSE_DUE);',
    to: '    if (ordered || !ordered) settled().appendChain(first, last, COARSE_DUE);',
    tests: ['unit/test-coarse', 'system/test-coarse'],
  },
  'coarse: a slot emptied by a clear stays the cached one': {
    file: 'lib/coarse-slots.js',
    from: '    if (slot === this.last) this.last = null;',
    to: '',
    tests: ['unit/test-coarse'],
  },
  'two queued immediates run in reverse order': {
    file: 'lib/immediate-queue.js',
    from: '  push(item) {\n',
    to: '  push(item) {\n    if (this.length === 1 && this.head === this.tail && this.head.count === 1) {\n' +
      '      const older = this.head.slots[this.head.bottom];\n      this.head.slots[this.head.bottom] = item;\n      item = older;\n    }\n',
    tests: ['unit/test-immediates', 'unit/test-immediate-queue', 'unit/test-timers'],
  },
};

/* a scratch copy of the tracked files, with node_modules linked */
function copyRepo(dir) {
  const files = spawnSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).stdout.split('\0').filter(Boolean);
  for (const file of files) {
    const to = path.join(dir, file);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    if (fs.existsSync(path.join(ROOT, file))) fs.copyFileSync(path.join(ROOT, file), to);
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
}

/* the names of the tests a qnit run reports as failed; an uncaught error ends the run: then its
   message and the last test that passed before it (the failing one is usually the next) */
function failedTests(out) {
  const lines = out.split('\n');
  const failed = lines.filter((line) => /^ X /.test(line)).map((line) => line.slice(3).replace(/ \([\d.]+ms\)$/, ''));
  const uncaught = lines.indexOf('uncaught error');
  if (uncaught >= 0) {
    const passed = lines.slice(0, uncaught).filter((line) => /^ - /.test(line)).pop();
    failed.push(`uncaught ${lines[uncaught + 1]} (after "${passed ? passed.slice(3).replace(/ \([\d.]+ms\)$/, '') : 'none'}")`);
  }
  return failed;
}

function plant(name, mutant, keep) {
  const dir = fs.mkdtempSync(path.join(process.env.QTIMERS_MUTANTS_DIR || os.tmpdir(), 'qtimers-mutant-'));
  try {
    copyRepo(dir);
    const file = path.join(dir, mutant.file);
    const source = fs.readFileSync(file, 'utf8');
    if (source.split(mutant.from).length !== 2) throw new Error(`${name}: the text to change is not in ${mutant.file} exactly once`);
    fs.writeFileSync(file, source.replace(mutant.from, mutant.to));
    const caught = [];
    for (const test of mutant.tests) {
      const res = spawnSync(process.execPath, [path.join(dir, 'node_modules', 'qnit', 'bin', 'qnit'), `test/${test}.js`],
        { cwd: dir, encoding: 'utf8', timeout: 600000 });
      const failed = failedTests(res.stdout + res.stderr);
      if (res.status !== 0 && failed.length === 0) failed.push(`(exit ${res.status}${res.signal ? ' ' + res.signal : ''})`);
      for (const t of failed) caught.push(`${test}.js: ${t}`);
    }
    return caught;
  } finally {
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
    else console.log(`  (kept: ${dir})`);
  }
}

const keep = process.argv.includes('--keep');
const check = process.argv.includes('--check');
const names = process.argv.slice(2).filter((a) => a !== '--keep' && a !== '--check');
let uncaught = 0;
for (const name of names.length ? names : Object.keys(MUTANTS)) {
  if (!MUTANTS[name]) throw new Error(`no mutant named ${JSON.stringify(name)}`);
  if (check) {
    const count = fs.readFileSync(path.join(ROOT, MUTANTS[name].file), 'utf8').split(MUTANTS[name].from).length - 1;
    console.log(`${name}: ${count === 1 ? 'ok' : `STALE (${count} matches in ${MUTANTS[name].file})`}`);
    if (count !== 1) uncaught += 1;
    continue;
  }
  const caught = plant(name, MUTANTS[name], keep);
  console.log(`${name}: ${caught.length ? 'caught by' : 'NOT CAUGHT'}`);
  for (const line of caught) console.log(`  ${line}`);
  if (!caught.length) uncaught += 1;
}
process.exitCode = uncaught ? 1 : 0;
