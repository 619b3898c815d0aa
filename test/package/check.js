'use strict';
/*
 * check: the package as the registry would hand it out (`npm run check:package`).
 *
 * Packs the package (`npm pack`) into a temporary directory and checks the tarball: publint and
 * @arethetypeswrong/cli (attw, every entry point under node10, node16 from CJS and from ESM, and
 * bundler) must report nothing at all, suggestions included; the files the README shows and the
 * CHANGELOG are in it, the tests are not.  Then it unpacks the tarball as node_modules/qtimers
 * of a fresh app, beside links to this repository's typescript and @types/node, and compiles the
 * consumers in test/package/consumer under every TypeScript moduleResolution: node10 (with
 * TypeScript 5, the one attw carries: TypeScript 7 has removed node10), node16, nodenext and
 * bundler (with TypeScript 7 and 5), then runs each compiled consumer and compares what it
 * prints: `import { isInstalled } from 'qtimers/register'` must work at run time, not only
 * type check.  Nothing is fetched: everything comes from this repository's node_modules.
 *
 * Needs Node >= 20 (publint and attw do); CI runs it once, not in the Node matrix.  Every child
 * process has a time limit and the whole check a deadline, so it fails rather than hangs.
 *
 *   node test/package/check.js [--package DIR] [--keep]
 *     --package DIR  check the package in DIR instead of this repository (DIR needs no
 *                    node_modules: the tools come from this repository)
 *     --keep         leave the temporary directory for inspection, and print where it is
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const ROOT = path.resolve(__dirname, '..', '..');
const CONSUMERS = path.join(__dirname, 'consumer');
const DEADLINE_MS = 5 * 60 * 1000;      // the whole check; it takes about half a minute
const STEP_TIMEOUT_MS = 2 * 60 * 1000;  // one pack, lint or compile
const RUN_TIMEOUT_MS = 20 * 1000;       // one compiled consumer
const startedAt = Date.now();

// what every compiled consumer prints, but the standalone one
const INSTALLED_RESULT = {
  installed: true, sameApi: true, globalIsOurs: true, knobsKept: true, timestamp: true,
  slept: 'slept', badKnob: 'ERR_INVALID_ARG_TYPE',
};
const STANDALONE_RESULT = { installed: false, globalIsOurs: false };

const failures = [];
let checks = 0;

function check(ok, what, detail) {
  checks++;
  if (ok) {
    console.log(`ok   ${what}`);
  } else {
    failures.push(what);
    console.log(`FAIL ${what}${detail ? `\n${indent(String(detail))}` : ''}`);
  }
  return ok;
}

function indent(text) {
  return text.trim().split('\n').map((line) => `     ${line}`).join('\n');
}

/* a child process, bounded in time (and by the check's deadline); its output as text */
function exec(command, args, options) {
  const left = DEADLINE_MS - (Date.now() - startedAt);
  if (left <= 0) throw new Error(`the check's deadline (${DEADLINE_MS / 1000} s) has passed`);
  const res = spawnSync(command, args, Object.assign({
    encoding: 'utf8',
    timeout: Math.min(options && options.timeout || STEP_TIMEOUT_MS, left),
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
  }, options));
  const output = `${res.stdout || ''}${res.stderr || ''}`;
  const timedOut = res.error && res.error.code === 'ETIMEDOUT';
  return {
    status: res.status,
    stdout: res.stdout || '',
    output: timedOut ? `${output}\n(killed: it ran past its time limit)` : res.error ? `${output}\n${res.error.message}` : output,
  };
}

function node(args, options) {
  return exec(process.execPath, args, options);
}

function parseArgs(argv) {
  const opts = { packageDir: ROOT, keep: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--package') opts.packageDir = path.resolve(argv[++i]);
    else if (argv[i] === '--keep') opts.keep = true;
    else throw new Error(`unknown argument ${argv[i]} (usage: node test/package/check.js [--package DIR] [--keep])`);
  }
  return opts;
}

/* a package's directory in this repository's node_modules, or in that of the package `from` */
function packageDir(name, from) {
  const paths = [from ? packageDir(from) : ROOT];
  return path.dirname(require.resolve(`${name}/package.json`, { paths }));
}

// ---------------------------------------------------------------- the tarball

function pack(packageDirectory, tmp) {
  const res = exec('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], { cwd: packageDirectory });
  if (!check(res.status === 0, 'npm pack', res.output)) return null;
  const info = JSON.parse(res.stdout.slice(res.stdout.indexOf('[')))[0];
  return { tarball: path.join(tmp, info.filename), files: info.files.map((f) => f.path) };
}

function checkContents(packageDirectory, files) {
  const has = new Set(files);
  for (const file of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'index.js']) {
    check(has.has(file), `the tarball has ${file}`);
  }
  // every relative image or link target the README shows must come along, or the registry's
  // page shows a broken image
  const readme = fs.readFileSync(path.join(packageDirectory, 'README.md'), 'utf8');
  const targets = new Set();
  for (const match of readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)[^)]*\)|<img[^>]*\ssrc="([^"]+)"/g)) {
    const target = match[1] || match[2];
    if (!/^[a-z]+:|^#|^\//i.test(target)) targets.add(target.replace(/^\.\//, ''));
  }
  check(targets.size > 0, 'the README shows at least one image (the benchmark chart)');
  for (const target of targets) check(has.has(target), `the README's ${target} is in the tarball`);
  const strays = files.filter((f) => /^(test|benchmark\/(?!results\/chart\.svg$)|node_modules)\//.test(f) || f.startsWith('.'));
  check(strays.length === 0, 'no tests, benchmarks or dot files in the tarball', strays.join('\n'));
}

function publint(tarball) {
  // publint's own function in a child process of its own (it is an ES module, and so it is
  // bounded in time like every other step); strict: warnings count as errors, and any message,
  // a suggestion too, fails the check
  const source = `
    const { publint } = await import(${JSON.stringify(require.resolve('publint', { paths: [ROOT] }))});
    const { formatMessage } = await import(${JSON.stringify(require.resolve('publint/utils', { paths: [ROOT] }))});
    const fs = await import('node:fs');
    const data = fs.readFileSync(${JSON.stringify(tarball)});
    const tarball = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
    const { messages, pkg } = await publint({ pack: { tarball }, level: 'suggestion', strict: true });
    for (const m of messages) console.log(m.type + ': ' + formatMessage(m, pkg, { color: false }));
    console.log(JSON.stringify(messages.length));
  `;
  const res = node(['--input-type=module', '-e', source]);
  const lines = res.stdout.trim().split('\n');
  check(res.status === 0 && lines[lines.length - 1] === '0', 'publint: no errors, warnings or suggestions', res.output);
}

function attw(tarball) {
  const cliDir = packageDir('@arethetypeswrong/cli');
  const bin = path.join(cliDir, require(path.join(cliDir, 'package.json')).bin.attw);
  // --no-definitely-typed: judge the package's own types, and fetch nothing
  const json = node([bin, '--no-definitely-typed', '--format', 'json', tarball]);
  let problems = null;
  try {
    problems = JSON.parse(json.stdout).analysis.problems;
  } catch (err) {
    problems = null;
  }
  if (!check(json.status === 0 && Array.isArray(problems) && problems.length === 0,
    'attw: every entry point resolves to types and JavaScript that agree, under every resolution')) {
    const table = node([bin, '--no-definitely-typed', '--no-color', '--no-emoji', '--format', 'table-flipped', tarball]);
    console.log(indent(table.output || json.output));
  }
}

// ---------------------------------------------------------------- consumers

/* the fresh app: the unpacked tarball as node_modules/qtimers, links to the compilers and types */
function makeApp(tmp, tarball) {
  const app = path.join(tmp, 'app');
  const installed = path.join(app, 'node_modules', 'qtimers');
  fs.mkdirSync(installed, { recursive: true });
  fs.mkdirSync(path.join(app, 'node_modules', '@types'));
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'qtimers-consumer', private: true, type: 'commonjs' }));
  const tar = exec('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  if (!check(tar.status === 0, 'the tarball unpacks as the app\'s node_modules/qtimers', tar.output)) return null;
  fs.symlinkSync(packageDir('@types/node'), path.join(app, 'node_modules', '@types', 'node'), 'dir');
  return app;
}

// TypeScript 7 (this repository's) and TypeScript 5 (attw's, the last line with node10)
function compilers() {
  const ts7 = packageDir('typescript');
  const ts5 = packageDir('typescript', '@arethetypeswrong/core');
  const version = (dir) => require(path.join(dir, 'package.json')).version;
  return [
    { name: `TypeScript ${version(ts7)}`, tsc: path.join(ts7, 'bin', 'tsc'), node10: false, checkAll: () => true },
    // TypeScript 5 takes some 15 s to check all of @types/node on a loaded 2-core machine: it
    // checks the declaration files (qtimers' among them) once, under node10, where TypeScript 7
    // cannot, and elsewhere only how the consumers use them
    { name: `TypeScript ${version(ts5)}`, tsc: path.join(ts5, 'bin', 'tsc'), node10: true, checkAll: (r) => r.node10 === true },
  ];
}

// moduleResolution -> the compiler options and the consumers (source -> the name compiled as)
const RESOLUTIONS = [
  {
    name: 'node10',
    options: { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true },
    consumers: { 'cjs.cts': 'cjs.ts', 'esm.mts': 'esm.ts' },   // node10 knows no .cts/.mts
    results: { 'cjs.js': INSTALLED_RESULT, 'esm.js': INSTALLED_RESULT },
    node10: true,
  },
  {
    name: 'node16',
    options: { module: 'node16', moduleResolution: 'node16' },
    consumers: { 'cjs.cts': 'cjs.cts', 'esm.mts': 'esm.mts' },
    results: { 'cjs.cjs': INSTALLED_RESULT, 'esm.mjs': INSTALLED_RESULT },
  },
  {
    name: 'nodenext',
    options: { module: 'nodenext', moduleResolution: 'nodenext' },
    consumers: { 'cjs.cts': 'cjs.cts', 'esm.mts': 'esm.mts' },
    results: { 'cjs.cjs': INSTALLED_RESULT, 'esm.mjs': INSTALLED_RESULT },
  },
  {
    name: 'bundler',
    options: { module: 'preserve', moduleResolution: 'bundler' },
    consumers: { 'cjs.cts': 'cjs.cts', 'esm.mts': 'esm.mts' },
    // module preserve leaves cjs.cts's import statements for a bundler: only esm runs in Node
    results: { 'esm.mjs': INSTALLED_RESULT },
  },
  {
    // alone in its program: any file that imports an installing entry would type the globals
    name: 'nodenext, qtimers/standalone alone',
    options: { module: 'nodenext', moduleResolution: 'nodenext' },
    consumers: { 'standalone.cts': 'standalone.cts' },
    results: { 'standalone.cjs': STANDALONE_RESULT },
  },
];

function compileAndRun(app, compiler, resolution) {
  const label = `${compiler.name}, moduleResolution ${resolution.name}`;
  const dir = path.join(app, `${compiler.node10 ? 'ts5' : 'ts7'}-${resolution.name.replace(/\W+/g, '-')}`);
  const src = path.join(dir, 'src');
  const out = path.join(dir, 'out');
  fs.mkdirSync(src, { recursive: true });
  for (const from of Object.keys(resolution.consumers)) {
    fs.copyFileSync(path.join(CONSUMERS, from), path.join(src, resolution.consumers[from]));
  }
  const compilerOptions = Object.assign({
    target: 'es2022', lib: ['es2022'], types: ['node'], strict: true, skipLibCheck: !compiler.checkAll(resolution),
    rootDir: src, outDir: out, noEmitOnError: true,
  }, resolution.options);
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src'] }, null, 2));
  const res = node([compiler.tsc, '-p', dir]);
  if (!check(res.status === 0 && res.output.trim() === '', `${label}: the consumers compile`, res.output)) return;
  for (const file of Object.keys(resolution.results)) {
    const run = node([path.join(out, file)], { cwd: app, timeout: RUN_TIMEOUT_MS });
    const lines = run.stdout.trim().split('\n');
    let result;
    try {
      result = JSON.parse(lines[lines.length - 1]);
    } catch (err) {
      result = undefined;
    }
    const expected = JSON.stringify(resolution.results[file]);
    check(run.status === 0 && JSON.stringify(result) === expected, `${label}: ${file} runs as it should`,
      `expected ${expected}\n${run.output}`);
  }
}

// ---------------------------------------------------------------- main

function main() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 20) {
    console.error(`check:package needs Node >= 20 (publint and attw do); this is ${process.version}`);
    return 1;
  }
  const opts = parseArgs(process.argv.slice(2));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qtimers-package-'));
  try {
    const packed = pack(opts.packageDir, tmp);
    if (packed !== null) {
      checkContents(opts.packageDir, packed.files);
      publint(packed.tarball);
      attw(packed.tarball);
      const app = makeApp(tmp, packed.tarball);
      if (app !== null) {
        for (const compiler of compilers()) {
          for (const resolution of RESOLUTIONS) {
            if (resolution.node10 && !compiler.node10) continue;
            compileAndRun(app, compiler, resolution);
          }
        }
      }
    }
  } catch (err) {
    check(false, 'the check itself ran to the end', err.stack);
  } finally {
    if (opts.keep) console.log(`kept ${tmp}`);
    else fs.rmSync(tmp, { recursive: true, force: true });
  }
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  if (failures.length > 0) {
    console.log(`check:package: ${failures.length} of ${checks} checks FAILED (${seconds} s):\n${failures.map((f) => `  ${f}`).join('\n')}`);
    return 1;
  }
  console.log(`check:package: all ${checks} checks passed (${seconds} s)`);
  return 0;
}

// run as a script only: loading this file (a test runner collecting files) does nothing
if (require.main === module) process.exitCode = main();
