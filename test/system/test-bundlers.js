'use strict';
// Bundled apps: esbuild, webpack and rollup (the real ones) bundle a small app that loads qtimers,
// `require('qtimers')` and `import 'qtimers/install'` with named imports, into CommonJS and ES
// module output, with no banner or shim (except the createRequire banner esbuild's ES module
// output needs on a Node without process.getBuiltinModule, as the README says).  Each bundle runs
// in a child with a watchdog and must install qtimers and run its callbacks in the order the
// same app gives natively, and pending() must name the app's own lines in the bundle.  The apps
// are written into a throwaway project under os.tmpdir() whose node_modules/qtimers links to this
// checkout; the bundles go to a directory beside it, where no qtimers can be resolved at run time.
// One esbuild bundle has a source map and runs with --enable-source-maps: its origins name the
// app's own file.

const fs = require('fs');
const os = require('os');
const path = require('path');
const url = require('url');
const child = require('../helpers/child');

const ROOT = path.resolve(__dirname, '..', '..');
const HAS_GET_BUILTIN = typeof process.getBuiltinModule === 'function';
const ESBUILD_ESM_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

// The app's body, after its header has defined `api` (qtimers' API, or a stand-in natively) and
// `sleep` (timers/promises' setTimeout).  Each timer whose origin is checked is made on one line
// that names it ('origin-...'), with a delay of its own to find it by in pending().
const BODY = `
function noop() {}
const order = [];
const log = (what) => order.push(what);
api.trackOrigins(true);
setTimeout(noop, 10001, 'origin-timeout').unref();
setInterval(noop, 10002, 'origin-interval').unref();
api.setTimeout(noop, 10003, 'origin-api').unref();
sleep(10004, 'origin-promise', { ref: false }).then(noop);
setImmediate(() => {
  log('I1');
  process.nextTick(() => log('tickI1'));
  Promise.resolve().then(() => log('promI1'));
});
setImmediate(() => {
  log('I2');
  setTimeout(() => {
    log('A');
    setTimeout(noop, 10005, 'origin-inner').unref();
    process.nextTick(() => log('tickA'));
    Promise.resolve().then(() => log('promA'));
  }, 1);
  setTimeout(() => log('B'), 1);
  setTimeout(appReport, 20);
});
function appReport() {
  const immediate = setImmediate(noop, 'origin-immediate');
  const origins = {};
  for (const p of api.pending()) origins[p.kind === 'immediate' ? 'immediate' : p.delay] = { origin: p.origin, stack: p.stack };
  clearImmediate(immediate);
  console.log(JSON.stringify({ installed: api.isInstalled(), order, origins }));
}
`;
const ORIGINS = { 10001: 'origin-timeout', 10002: 'origin-interval', 10003: 'origin-api', 10004: 'origin-promise', 10005: 'origin-inner', immediate: 'origin-immediate' };
const NATIVE_API = 'const api = { isInstalled: () => false, trackOrigins() {}, pending: () => [], setTimeout };\n';

const APPS = {
  'app-cjs.js': "const api = require('qtimers');\nconst sleep = require('qtimers/promises').setTimeout;\n" + BODY,
  'app-esm.mjs': "import 'qtimers/install';\n" +
    "import { isInstalled, trackOrigins, pending, setTimeout as qtimersSetTimeout } from 'qtimers';\n" +
    "import { setTimeout as sleep } from 'timers/promises';\n" +
    'const api = { isInstalled, trackOrigins, pending, setTimeout: qtimersSetTimeout };\n' + BODY,
  'native-cjs.js': NATIVE_API + "const sleep = require('timers/promises').setTimeout;\n" + BODY,
  'native-esm.mjs': "import { setTimeout as sleep } from 'timers/promises';\n" + NATIVE_API + BODY,
};

// every bundle: [bundler, app, format, file]; the esbuild ones also minified once
const BUNDLES = [];
for (const bundler of ['esbuild', 'webpack', 'rollup']) {
  for (const app of ['cjs', 'esm']) {
    for (const format of ['cjs', 'esm']) BUNDLES.push({ bundler, app, format, file: `${bundler}-${app}-to-${format}.${format === 'esm' ? 'mjs' : 'cjs'}` });
  }
}
BUNDLES.push({ bundler: 'esbuild', app: 'esm', format: 'esm', minify: true, file: 'esbuild-esm-to-esm.min.mjs' });
// with a source map, run with --enable-source-maps: origins then name the app's own source
BUNDLES.push({ bundler: 'esbuild', app: 'cjs', format: 'cjs', sourcemap: true, file: 'esbuild-cjs-to-cjs.map.cjs' });

let top = null;         // the temp directory: project/ (the apps) and dist/ (the bundles)

function entryOf(dir, app) {
  return path.join(dir, app === 'cjs' ? 'app-cjs.js' : 'app-esm.mjs');
}

function buildEsbuild(project, dist, bundle) {
  const esbuild = require('esbuild');
  const banner = bundle.format === 'esm' && !HAS_GET_BUILTIN ? { js: ESBUILD_ESM_BANNER } : undefined;
  esbuild.buildSync({
    entryPoints: [entryOf(project, bundle.app)], bundle: true, platform: 'node', format: bundle.format,
    outfile: path.join(dist, bundle.file), minify: bundle.minify === true, sourcemap: bundle.sourcemap === true, banner, logLevel: 'silent',
  });
}

function buildWebpack(project, dist, bundles, done) {
  const webpack = require('webpack');
  const configs = bundles.map((bundle) => ({
    mode: 'none',
    target: 'node',
    context: project,
    entry: entryOf(project, bundle.app),
    output: { path: dist, filename: bundle.file, module: bundle.format === 'esm' },
    experiments: { outputModule: bundle.format === 'esm' },
    devtool: false,
  }));
  webpack(configs, (err, stats) => {
    if (!err && stats.hasErrors()) err = new Error(stats.toString('errors-only'));
    done(err);
  });
}

function buildRollup(project, dist, bundles, done) {
  const { rollup } = require('rollup');
  const commonjs = require('@rollup/plugin-commonjs');
  const { nodeResolve } = require('@rollup/plugin-node-resolve');
  const { builtinModules } = require('module');
  const external = builtinModules.concat(builtinModules.map((name) => 'node:' + name));
  // one build per app, written in each format it is wanted in
  const apps = Array.from(new Set(bundles.map((bundle) => bundle.app)));
  Promise.all(apps.map((app) => rollup({ input: entryOf(project, app), external, plugins: [nodeResolve({ preferBuiltins: true }), commonjs()], onwarn() {} })
    .then((built) => Promise.all(bundles.filter((bundle) => bundle.app === app).map((bundle) =>
      built.write({ file: path.join(dist, bundle.file), format: bundle.format === 'esm' ? 'es' : 'cjs' }))))))
    .then(() => done(null), done);
}

/* run `file` in a child (cwd: its directory) with a watchdog; done({ status, stdout, stderr, json }) */
function runNode(file, nodeArgs, done) {
  child.spawn(process.execPath, nodeArgs.concat(file), { timeout: 20000, cwd: path.dirname(file) }, (r) => {
    done({ status: r.timedOut ? 'timed out' : r.code, stdout: r.out, stderr: r.err, json: child.lastJson(r.out) || undefined });
  });
}

/* { file, line, column } of a frame's position: "fn (file:line:col)" or "file:line:col" */
function positionOf(frame) {
  const match = /^(?:.* \()?(.+):(\d+):(\d+)\)?$/.exec(frame);
  if (match === null) return null;
  const file = match[1].startsWith('file://') ? url.fileURLToPath(match[1]) : match[1];
  return { file, line: Number(match[2]), column: Number(match[3]) };
}

// the names of qtimers' own functions and methods: none may be a frame of an origin's stack
const LIB_NAMES = new Set();
for (const file of fs.readdirSync(path.join(ROOT, 'lib')).filter((name) => name.endsWith('.js'))) {
  const source = fs.readFileSync(path.join(ROOT, 'lib', file), 'utf8');
  for (const m of source.matchAll(/function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(|^\s+(?:async\s+|static\s+)?([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*\{$/gm)) {
    LIB_NAMES.add(m[1] || m[2]);
  }
}

/* the function a frame names (its last part, without bundlers' renaming suffix), or null */
function functionOf(frame) {
  const match = /^(?:async |new )?([^ ]+)(?: \[as [^\]]+\])? \(/.exec(frame);
  if (match === null) return null;
  return match[1].split('.').pop().replace(/\$\d+$/, '');
}

/*
 * every origin the app names is the line (the bundle's, or the app's own file unbundled) that
 * made it, and no frame of its stack in that file is one of qtimers' functions
 */
function checkOrigins(t, label, json, file, checkNames) {
  const source = fs.readFileSync(file, 'utf8').split('\n');
  for (const key of Object.keys(ORIGINS)) {
    const found = json.origins[key];
    t.ok(found && typeof found.origin === 'string', `${label}: ${ORIGINS[key]} has an origin`);
    if (!found || typeof found.origin !== 'string') continue;
    const at = positionOf(found.origin);
    t.ok(at !== null && at.file === file, `${label}: ${ORIGINS[key]} is in ${path.basename(file)}: ${found.origin}`);
    if (at === null || at.file !== file) continue;
    const line = source[at.line - 1] || '';
    const near = checkNames ? line : line.slice(Math.max(0, at.column - 1), at.column + 120);
    t.ok(near.includes(ORIGINS[key]), `${label}: ${ORIGINS[key]} names its line: ${found.origin} is ${near.slice(0, 200)}`);
    if (!checkNames) continue;
    for (const frame of found.stack.split('\n')) {
      const position = positionOf(frame);
      if (position === null || position.file !== file) continue;
      const name = functionOf(frame);
      t.ok(name === null || !LIB_NAMES.has(name), `${label}: ${ORIGINS[key]}'s stack has none of qtimers' frames: ${frame}`);
    }
  }
}

// the runs, by name: native-cjs, native-esm (the apps without qtimers), app-cjs, app-esm
// (unbundled, with it) and each bundle's file
const runs = {};

/* the order the app of that kind ran its callbacks in natively */
function nativeOrder(app) {
  const res = runs[`native-${app}.${app === 'cjs' ? 'js' : 'mjs'}`];
  return res && res.json ? res.json.order : null;
}

module.exports = {
  before: function (done) {
    top = fs.mkdtempSync(path.join(os.tmpdir(), 'qtimers-bundlers-'));
    const project = path.join(top, 'project');
    const dist = path.join(top, 'dist');
    fs.mkdirSync(path.join(project, 'node_modules'), { recursive: true });
    fs.mkdirSync(dist);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'bundled-app', private: true }));
    fs.symlinkSync(ROOT, path.join(project, 'node_modules', 'qtimers'), 'dir');
    for (const name of Object.keys(APPS)) fs.writeFileSync(path.join(project, name), APPS[name]);
    // every child, two at a time (the machine has two cores), once the bundles are built
    const runAll = (err) => {
      if (err) return done(err);
      const files = Object.keys(APPS).map((name) => path.join(project, name))
        .concat(BUNDLES.map((bundle) => path.join(dist, bundle.file)));
      child.twoAtATime(files, (file, finished) => {
        const mapped = BUNDLES.some((bundle) => bundle.sourcemap && file.endsWith(bundle.file));
        runNode(file, mapped ? ['--enable-source-maps'] : [], (res) => {
          runs[path.basename(file)] = res;
          finished();
        });
      }, done);
    };
    try {
      for (const bundle of BUNDLES.filter((b) => b.bundler === 'esbuild')) buildEsbuild(project, dist, bundle);
    } catch (err) {
      return done(err);
    }
    buildWebpack(project, dist, BUNDLES.filter((b) => b.bundler === 'webpack'), (err) => {
      if (err) return done(err);
      buildRollup(project, dist, BUNDLES.filter((b) => b.bundler === 'rollup'), runAll);
    });
  },

  after: function (done) {
    if (top !== null) fs.rmSync(top, { recursive: true, force: true });
    done();
  },

  'natively, the apps run their callbacks in Node\'s order': function (t) {
    for (const app of ['cjs', 'esm']) {
      const res = runs[`native-${app}.${app === 'cjs' ? 'js' : 'mjs'}`];
      t.equal(res.status, 0, `${app}: exits 0: ${res.stderr}`);
      t.deepEqual(res.json && res.json.order, ['I1', 'tickI1', 'promI1', 'I2', 'A', 'tickA', 'promA', 'B'], `${app}: the order`);
    }
    t.done();
  },

  'unbundled, the apps install qtimers, keep the order and name their own lines': function (t) {
    for (const app of ['cjs', 'esm']) {
      const file = entryOf(path.join(top, 'project'), app);
      const res = runs[path.basename(file)];
      t.equal(res.status, 0, `${app}: exits 0: ${res.stderr}`);
      t.ok(res.json, `${app}: reports: ${res.stdout}`);
      if (!res.json) continue;
      t.equal(res.json.installed, true, `${app}: installed`);
      t.deepEqual(res.json.order, nativeOrder(app), `${app}: the order is native's`);
      checkOrigins(t, app, res.json, file, true);
    }
    t.done();
  },

  'esbuild, webpack and rollup bundles, CommonJS and ES module, start with qtimers installed and run in native order': function (t) {
    for (const bundle of BUNDLES) {
      const res = runs[bundle.file];
      t.equal(res.status, 0, `${bundle.file}: exits 0: ${res.stderr}`);
      t.ok(res.json, `${bundle.file}: reports: ${res.stdout}`);
      if (!res.json) continue;
      t.equal(res.json.installed, true, `${bundle.file}: installed`);
      t.deepEqual(res.json.order, nativeOrder(bundle.app), `${bundle.file}: the order is native's`);
      bundle.json = res.json;
    }
    t.done();
  },

  'in every bundle, pending() names the app\'s own lines (positions in the bundle), none of qtimers\'': function (t) {
    for (const bundle of BUNDLES) {
      t.ok(bundle.json, `${bundle.file} ran`);
      // source-mapped: the app's own file and lines
      const file = bundle.sourcemap ? entryOf(path.join(top, 'project'), bundle.app) : path.join(top, 'dist', bundle.file);
      if (bundle.json) checkOrigins(t, bundle.file, bundle.json, file, bundle.minify !== true);
    }
    t.done();
  },
};
