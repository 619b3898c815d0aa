'use strict';
// The runner of Node's own timer tests (test/node/run.js) run on a made-up Node source whose
// "timer tests" pass, fail, skip, hang, need flags and spawn children on purpose: each outcome
// must land in its column, natively failing tests must not count against qtimers, and a source
// given as a tarball must be unpacked to the cache with only what the tests need.
// Not part of `npm test` (test/unit, test/system, test/bench); run it with `npx qnit test/node/test-run.js`.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const RUN_JS = path.join(__dirname, 'run.js');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'qtimers-test-node-run-'));

// currentTimestamp is a global only qtimers defines: a test can tell which timers it runs with
const FAKE_TESTS = {
  'test-timers-pass.js': "require('../common'); setTimeout(() => {}, 1);",
  'test-timers-qtimers-only-fails.js': "require('../common'); if (typeof currentTimestamp === 'function') process.exit(1);",
  'test-timers-native-fails.js': "require('../common'); process.exit(3);",
  'test-timers-skip.js': "require('../common'); console.log('1..0 # Skipped: not on this machine');",
  'test-timers-flags.js': "// Flags: --expose-gc --no-warnings\nrequire('../common'); if (typeof gc !== 'function') process.exit(1);",
  'test-timers-child.js': [
    "require('../common');",
    "const { spawnSync } = require('child_process');",
    "const child = spawnSync(process.execPath, ['-e', 'process.exit(typeof currentTimestamp === \"function\" ? 0 : 5)']);",
    "// a process the test spawns runs with the same timers as the test",
    "if ((child.status === 0) !== (typeof currentTimestamp === 'function')) process.exit(1);",
  ].join('\n'),
  'test-timers-hang.js': "require('../common'); setInterval(() => {}, 1000);",
  'test-timers-knob.js': "require('../common'); if (setImmediate.maxTickDepth === 0) { console.log('maxTickDepth is 0'); process.exit(1); }",
  'test-other.js': 'process.exit(1);',
};

/* a directory laid out like Node's source, declaring version (or none), in scratch/name */
function fakeSource(name, version) {
  const dir = path.join(scratch, name);
  fs.mkdirSync(path.join(dir, 'test', 'parallel'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'test', 'common'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'test', 'fixtures', 'unused'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'test', 'common', 'index.js'), "'use strict';\nmodule.exports = {};\n");
  fs.writeFileSync(path.join(dir, 'test', 'fixtures', 'unused', 'big.txt'), 'x'.repeat(1000));
  for (const file of Object.keys(FAKE_TESTS)) {
    fs.writeFileSync(path.join(dir, 'test', 'parallel', file), "'use strict';\n" + FAKE_TESTS[file] + '\n');
  }
  if (version) {
    const [major, minor, patch] = version.slice(1).split('.');
    fs.writeFileSync(path.join(dir, 'src', 'node_version.h'), `#define NODE_MAJOR_VERSION ${major}\n` +
      `#define NODE_MINOR_VERSION ${minor}\n#define NODE_PATCH_VERSION ${patch}\n`);
  }
  return dir;
}

function runRunner(args, env) {
  const result = spawnSync(process.execPath, [RUN_JS].concat(args), {
    encoding: 'utf8',
    timeout: 60000,
    killSignal: 'SIGKILL',
    env: Object.assign({}, process.env, { QTIMERS_NODE_TESTS_CACHE: path.join(scratch, 'cache') }, env),
  });
  return { status: result.status, out: result.stdout + result.stderr };
}

/* { 'test-timers-pass.js': ['pass', 'pass'], ... } from the printed table */
function rows(out) {
  const table = {};
  for (const line of out.split('\n')) {
    const match = /^(test-\S+\.js)\s+(\S+)\s+(\S+)$/.exec(line);
    if (match) table[match[1]] = [match[2], match[3]];
  }
  return table;
}

module.exports = {
  after: function(done) {
    fs.rmSync(scratch, { recursive: true, force: true });
    done();
  },

  'each test runs natively and with qtimers; native failures are reported and not counted': function(t) {
    const src = fakeSource('same-version', process.version);
    const res = runRunner(['--only', '^test-timers-(?!knob)', '--timeout', '3'], { QTIMERS_NODE_SOURCE: src });
    const table = rows(res.out);
    t.deepEqual(table, {
      'test-timers-child.js': ['pass', 'pass'],
      'test-timers-flags.js': ['pass', 'pass'],
      'test-timers-hang.js': ['TIMEOUT', 'TIMEOUT'],
      'test-timers-native-fails.js': ['FAIL', 'FAIL'],
      'test-timers-pass.js': ['pass', 'pass'],
      'test-timers-qtimers-only-fails.js': ['pass', 'FAIL'],
      'test-timers-skip.js': ['skip', 'skip'],
    }, res.out);
    t.ok(/fail natively on this machine, not counted: test-timers-hang\.js test-timers-native-fails\.js/.test(res.out), res.out);
    t.ok(/fail only with qtimers: test-timers-qtimers-only-fails\.js/.test(res.out), res.out);
    t.ok(/\n3 passed, 1 failed\n$/.test(res.out), 'closing line:\n' + res.out);
    t.equal(res.status, 1);
    t.ok(!/WARNING/.test(res.out), 'no version warning for the running version\'s tests');
    t.done();
  },

  'a run in which no test passed natively compared nothing: it fails': function(t) {
    const src = fakeSource('none-native', process.version);
    const res = runRunner(['--only', 'native-fails|skip', '--timeout', '3'], { QTIMERS_NODE_SOURCE: src });
    t.deepEqual(rows(res.out), { 'test-timers-native-fails.js': ['FAIL', 'FAIL'], 'test-timers-skip.js': ['skip', 'skip'] }, res.out);
    t.ok(/\n0 passed, 0 failed\nno test passed natively: nothing was compared\n$/.test(res.out), res.out);
    t.equal(res.status, 1);
    t.done();
  },

  '--mode node preloads qtimers with maxTickDepth = 0, and -v shows the failing run\'s output': function(t) {
    const src = fakeSource('mode', process.version);
    const res = runRunner(['--only', 'knob|pass', '--mode', 'node', '-v'], { QTIMERS_NODE_SOURCE: src });
    t.deepEqual(rows(res.out), { 'test-timers-knob.js': ['pass', 'FAIL'], 'test-timers-pass.js': ['pass', 'pass'] }, res.out);
    t.ok(/\| maxTickDepth is 0/.test(res.out), res.out);
    t.ok(/\n1 passed, 1 failed\n$/.test(res.out), res.out);
    t.done();
  },

  'all passing exits 0; another version\'s tests or an unknown version draw a warning, not a failure': function(t) {
    const other = runRunner(['--only', 'pass'], { QTIMERS_NODE_SOURCE: fakeSource('other-version', 'v1.2.3') });
    t.ok(/WARNING: these are Node v1\.2\.3's tests, running under Node v\d/.test(other.out), other.out);
    t.ok(/\n1 passed, 0 failed\n$/.test(other.out), other.out);
    t.equal(other.status, 0);
    const unknown = runRunner(['--only', 'pass'], { QTIMERS_NODE_SOURCE: fakeSource('no-version', null) });
    t.ok(/WARNING: nothing in this source tells its Node version/.test(unknown.out), unknown.out);
    t.equal(unknown.status, 0);
    t.done();
  },

  'a tarball source is unpacked once into the cache, with the timer tests, test/common and the version only': function(t) {
    fakeSource('node-v1.2.4', 'v1.2.4');
    const tarball = path.join(scratch, 'node-v1.2.4.tar.gz');
    const tar = spawnSync('tar', ['-czf', tarball, '-C', scratch, 'node-v1.2.4'], { encoding: 'utf8' });
    t.equal(tar.status, 0, tar.stderr);
    const first = runRunner(['--only', 'pass'], { QTIMERS_NODE_SOURCE: tarball });
    const cached = path.join(scratch, 'cache', 'v1.2.4');
    t.ok(/unpacking/.test(first.out) && first.out.includes(cached), first.out);
    t.ok(/\n1 passed, 0 failed\n$/.test(first.out), first.out);
    t.ok(fs.existsSync(path.join(cached, 'test', 'parallel', 'test-timers-pass.js')));
    t.ok(fs.existsSync(path.join(cached, 'test', 'common', 'index.js')));
    t.ok(fs.existsSync(path.join(cached, 'src', 'node_version.h')));
    t.ok(!fs.existsSync(path.join(cached, 'test', 'parallel', 'test-other.js')), 'only the timer tests');
    t.ok(!fs.existsSync(path.join(cached, 'test', 'fixtures')), 'no fixture the timer tests do not name');
    const second = runRunner(['--only', 'pass'], { QTIMERS_NODE_SOURCE: tarball });
    t.ok(!/unpacking/.test(second.out) && second.out.includes(cached), 'the second run uses the cache:\n' + second.out);
    t.done();
  },

  'a source that is not there says how to give one': function(t) {
    const res = runRunner([], { QTIMERS_NODE_SOURCE: path.join(scratch, 'nowhere') });
    t.equal(res.status, 2);
    t.ok(/QTIMERS_NODE_SOURCE=.*nowhere: no such file or directory/.test(res.out), res.out);
    t.ok(/fetch-debian-source\.sh/.test(res.out), res.out);
    t.done();
  },

  'flags come from the // Flags: line': function(t) {
    const { declaredFlags } = require('./run');
    const file = path.join(scratch, 'flags.js');
    fs.writeFileSync(file, "'use strict';\n// Flags: --expose-internals  --no-warnings\nrequire('x');\n");
    t.deepEqual(declaredFlags(file), ['--expose-internals', '--no-warnings']);
    fs.writeFileSync(file, "'use strict';\n");
    t.deepEqual(declaredFlags(file), []);
    t.done();
  },
};
