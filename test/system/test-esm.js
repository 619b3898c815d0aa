'use strict';
// The package as its users load it: ES module imports, the "exports" map, `node -r qtimers`,
// `node --import qtimers/register`, `import 'qtimers/install'`.  Each case runs in a fresh Node
// process inside a throwaway project whose node_modules/qtimers links to this checkout, so
// resolution goes through package.json exactly as from an installed copy.  (The apps are written
// there at test time rather than kept under test/: the matrix runs `qnit test`, which loads every
// .js and .mjs file under test/ into its own process.)

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const ROOT = path.resolve(__dirname, '..', '..');

let project = null;

/* the throwaway project, made on first use and removed when the test process exits */
function consumerProject() {
  if (project === null) {
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'qtimers-consumer-'));
    process.on('exit', () => fs.rmSync(project, { recursive: true, force: true }));
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    fs.mkdirSync(path.join(project, 'node_modules'));
    fs.symlinkSync(ROOT, path.join(project, 'node_modules', 'qtimers'), 'dir');
  }
  return project;
}

// the API's members: each must also be a named export of the ES module entries
const NAMES = Object.keys(require('../../lib/standalone')).sort();

/* write `source` as the project's `file` and run it with node `flags`; the last line is JSON */
function runApp(file, source, flags) {
  const dir = consumerProject();
  fs.writeFileSync(path.join(dir, file), source);
  const res = spawnSync(process.execPath, (flags || []).concat(file), { cwd: dir, encoding: 'utf8', timeout: 20000 });
  const lines = (res.stdout || '').trim().split('\n');
  let json;
  try {
    json = JSON.parse(lines[lines.length - 1]);
  } catch (err) {
    json = undefined;
  }
  return { status: res.status, stdout: res.stdout, stderr: res.stderr, json };
}

// An app's first lines, before anything of its own: are the timers qtimers' already?
const FIRST_LINE_PROBE = `
  const firstLine = {
    knob: typeof globalThis.setTimeout.MIN_TIMEOUT === 'number',
    timestamp: typeof globalThis.currentTimestamp === 'function',
  };
`;

module.exports = {
  'import qtimers from "qtimers" installs and gives the same object require() does': function(t) {
    const res = runApp('default.mjs', `
      import qtimers from 'qtimers';
      import { createRequire } from 'node:module';
      import * as timers from 'node:timers';
      import { setTimeout as promiseTimeout } from 'node:timers/promises';
      const require = createRequire(import.meta.url);
      const out = {
        same: qtimers === require('qtimers'),
        installed: qtimers.isInstalled(),
        globals: globalThis.setTimeout === qtimers.setTimeout && globalThis.setImmediate === qtimers.setImmediate,
        namedBuiltins: timers.setTimeout === qtimers.setTimeout && promiseTimeout === require('qtimers/promises').setTimeout,
      };
      out.fired = await new Promise((resolve) => setTimeout(resolve, 1, 'fired'));
      out.awaited = await promiseTimeout(1, 'awaited');
      console.log(JSON.stringify(out));
    `);
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json, { same: true, installed: true, globals: true, namedBuiltins: true, fired: 'fired', awaited: 'awaited' });
    t.done();
  },

  'named imports from "qtimers" are the API\'s members, and all of them': function(t) {
    const res = runApp('named.mjs', `
      import * as ns from 'qtimers';
      import { setTimeout, clearTimeout, setImmediate, install, uninstall, isInstalled } from 'qtimers';
      const api = ns.default;
      const named = Object.keys(ns).filter((k) => k !== 'default').sort();
      const out = {
        named,
        apiKeys: Object.keys(api).sort(),
        same: named.every((k) => ns[k] === api[k]),
        knobs: [typeof setTimeout.MIN_TIMEOUT, typeof setImmediate.maxTickDepth],
      };
      uninstall();
      out.uninstalled = !isInstalled() && globalThis.setTimeout !== setTimeout;
      install({ timersModule: false });
      out.reinstalled = isInstalled() && globalThis.setTimeout === setTimeout;
      clearTimeout(setTimeout(() => {}, 1000));
      console.log(JSON.stringify(out));
    `);
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json, {
      named: NAMES, apiKeys: NAMES, same: true,
      knobs: ['number', 'number'], uninstalled: true, reinstalled: true,
    });
    t.done();
  },

  'qtimers/standalone imports without installing; qtimers/promises has named exports': function(t) {
    const res = runApp('standalone.mjs', `
      import standalone, { setTimeout, isInstalled } from 'qtimers/standalone';
      import { setTimeout as sleep, setImmediate, setInterval, scheduler } from 'qtimers/promises';
      import * as nodePromises from 'node:timers/promises';
      const out = {
        installed: isInstalled(),
        nativeGlobals: globalThis.setTimeout !== setTimeout && typeof globalThis.setTimeout.MIN_TIMEOUT === 'undefined',
        nativePromises: nodePromises.setTimeout !== sleep,
        same: standalone.setTimeout === setTimeout,
        values: [await sleep(1, 'a'), await setImmediate('b'), await scheduler.wait(1), await scheduler.yield()],
      };
      for await (const v of setInterval(1, 'c')) { out.values.push(v); break; }
      console.log(JSON.stringify(out));
    `);
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json, { installed: false, nativeGlobals: true, nativePromises: true, same: true, values: ['a', 'b', null, null, 'c'] });
    t.done();
  },

  'import "qtimers/install" installs before the importing module runs': function(t) {
    const res = runApp('side-effect.mjs', `
      import 'qtimers/install';
      import { setTimeout as timersSetTimeout } from 'timers';
      import { scheduler } from 'timers/promises';
      ${FIRST_LINE_PROBE}
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      const qtimers = require('qtimers');
      console.log(JSON.stringify(Object.assign(firstLine, {
        installed: qtimers.isInstalled(),
        named: timersSetTimeout === qtimers.setTimeout,
        scheduler: scheduler.wait === require('qtimers/promises').scheduler.wait,
      })));
    `);
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json, { knob: true, timestamp: true, installed: true, named: true, scheduler: true });
    t.done();
  },

  'node -r qtimers and -r qtimers/register install before the first line': function(t) {
    const app = `
      ${FIRST_LINE_PROBE}
      const qtimers = require('qtimers');
      firstLine.installed = qtimers.isInstalled() && globalThis.setTimeout === qtimers.setTimeout;
      firstLine.promises = require('timers/promises').setTimeout === require('qtimers/promises').setTimeout;
      setTimeout(() => console.log(JSON.stringify(firstLine)), 1);
    `;
    for (const preload of ['qtimers', 'qtimers/register', 'qtimers/install']) {
      const res = runApp('app.cjs', app, ['-r', preload]);
      t.equal(res.status, 0, res.stderr);
      t.deepEqual(res.json, { knob: true, timestamp: true, installed: true, promises: true }, preload);
    }
    const without = runApp('app.cjs', `${FIRST_LINE_PROBE} console.log(JSON.stringify(firstLine));`);
    t.deepEqual(without.json, { knob: false, timestamp: false }, 'the probe sees Node\'s timers when nothing is preloaded');
    t.done();
  },

  'node --import qtimers/register installs before the first line of an ES module app': function(t) {
    const app = `
      ${FIRST_LINE_PROBE}
      import { setTimeout as sleep } from 'node:timers/promises';
      const { setTimeout: ours } = await import('qtimers/promises');
      firstLine.promises = sleep === ours;
      firstLine.value = await sleep(1, 'slept');
      console.log(JSON.stringify(firstLine));
    `;
    for (const flags of [['--import', 'qtimers/register'], ['-r', 'qtimers/register']]) {
      const res = runApp('app.mjs', app, flags);
      t.equal(res.status, 0, res.stderr);
      t.deepEqual(res.json, { knob: true, timestamp: true, promises: true, value: 'slept' }, flags.join(' '));
    }
    t.done();
  },

  'CommonJS entry points: which install, and what the exports map hides': function(t) {
    const res = runApp('entries.cjs', `
      const out = {};
      const standalone = require('qtimers/standalone');
      require('qtimers/promises');
      out.standaloneInstalls = standalone.isInstalled();
      out.installReturnsApi = require('qtimers/install') === standalone && standalone.isInstalled();
      out.registerIsInstall = require('qtimers/register') === require('qtimers');
      out.version = require('qtimers/package.json').version === ${JSON.stringify(require('../../package.json').version)};
      try { require('qtimers/lib/timeouts.js'); out.internals = 'reachable'; } catch (err) { out.internals = err.code; }
      console.log(JSON.stringify(out));
    `);
    t.equal(res.status, 0, res.stderr);
    t.deepEqual(res.json, {
      standaloneInstalls: false, installReturnsApi: true, registerIsInstall: true, version: true,
      internals: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
    });
    t.done();
  },

  'every file the exports map and types name is in the package': function(t) {
    const pkg = require('../../package.json');
    const targets = [pkg.main, pkg.types];
    (function collect(entry) {
      if (typeof entry === 'string') targets.push(entry);
      else for (const key of Object.keys(entry)) collect(entry[key]);
    })(pkg.exports);
    for (const target of targets) {
      t.ok(fs.existsSync(path.join(ROOT, target)), `${target} exists`);
      const normalized = path.normalize(target);
      const packed = normalized === 'package.json' ||   // npm always packs it
        pkg.files.some((f) => normalized === path.normalize(f) || normalized.startsWith(path.normalize(f)));
      t.ok(packed, `${target} is in "files"`);
    }
    t.done();
  },
};
