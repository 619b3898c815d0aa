'use strict';
// The bundled TypeScript declarations: test/types compiles against @types/node (typed uses,
// assignability to Node's own timer types, the knobs on the global functions once an installing
// entry is imported, and @ts-expect-error lines that must not compile); test/types/standalone,
// a program that loads only qtimers/standalone, gets no global knobs; and checks generated from
// the running package that the declarations name exactly its members, knobs and, entry point by
// entry point, the ES module exports that Node gives an `import` through package.json "exports".
// (Every TypeScript moduleResolution, against the packed tarball: test/package/check.js.)

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const qt = require('../../lib/standalone');
const promises = require('../../lib/promises');
const pkg = require('../../package.json');

const ROOT = path.resolve(__dirname, '..', '..');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

function tsc(project) {
  const res = spawnSync(process.execPath, [TSC, '-p', project], { encoding: 'utf8', timeout: 120000 });
  return { status: res.status, output: `${res.stdout}${res.stderr}${res.error ? res.error.message : ''}` };
}

/* `{ "a": true, "b": true }` for the enumerable string keys of `object`, as TypeScript source */
function keysLiteral(object) {
  const keys = Object.keys(object);
  return `{ ${keys.map((k) => `${JSON.stringify(k)}: true`).join(', ')} }`;
}

/* compile the `sources` ({ file name: text }) as a project in a temporary directory */
function tscSources(sources) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qtimers-types-'));
  try {
    for (const name of Object.keys(sources)) fs.writeFileSync(path.join(dir, name), sources[name]);
    return tsc(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const COMPILER_OPTIONS = {
  module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022'],
  types: ['node'], typeRoots: [path.join(ROOT, 'node_modules', '@types')], strict: true, noEmit: true,
};

/* the entry points an `import` can name, with the declarations "exports" gives that import */
function importEntries() {
  return Object.keys(pkg.exports).filter((key) => key !== './package.json').map((key) => {
    const target = pkg.exports[key];
    const types = target.import ? target.import.types : target.types;
    return { specifier: key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`, types: path.join(ROOT, types) };
  });
}

module.exports = {
  'test/types compiles: the declarations fit @types/node, and misuse is rejected': function(t) {
    const res = tsc(path.join(ROOT, 'test', 'types'));
    t.equal(res.status, 0, res.output);
    t.equal(res.output, '');
    t.done();
  },

  'test/types/standalone compiles: loading only qtimers/standalone types no global knob': function(t) {
    const res = tsc(path.join(ROOT, 'test', 'types', 'standalone'));
    t.equal(res.status, 0, res.output);
    t.equal(res.output, '');
    t.done();
  },

  'the declarations name exactly the members and knobs the package has at run time': function(t) {
    // Record<keyof X, true> = { ...literal }: a declared name missing at run time is a missing
    // property, a run-time name not declared is an excess property.  The declaration files
    // themselves, by path (test/types reaches them through "exports").
    const lib = (file) => JSON.stringify(path.join(ROOT, 'lib', file));
    const timeoutKnobs = keysLiteral(qt.setTimeout);
    const immediateKnobs = keysLiteral(qt.setImmediate);
    const res = tscSources({
      'tsconfig.json': JSON.stringify({ compilerOptions: COMPILER_OPTIONS, include: ['members.cts', 'members.mts'] }),
      'members.cts': `
        import qtimers = require(${lib('index.js')});
        import standalone = require(${lib('standalone.js')});
        import promises = require(${lib('promises.js')});
        type Knobs<F> = Exclude<keyof F, '__promisify__'>;
        export const api: Record<keyof typeof qtimers, true> = ${keysLiteral(qt)};
        export const standaloneApi: Record<keyof typeof standalone, true> = ${keysLiteral(qt)};
        export const setTimeoutKnobs: Record<Knobs<typeof qtimers.setTimeout>, true> = ${timeoutKnobs};
        export const setImmediateKnobs: Record<Knobs<typeof qtimers.setImmediate>, true> = ${immediateKnobs};
        // installed, the global functions are qtimers': the same knobs, typed on them too
        export const globalSetTimeoutKnobs: Record<Knobs<typeof globalThis.setTimeout>, true> = ${timeoutKnobs};
        export const globalSetImmediateKnobs: Record<Knobs<typeof globalThis.setImmediate>, true> = ${immediateKnobs};
        export const globalTimestamp: typeof globalThis.currentTimestamp = qtimers.currentTimestamp;
        export const promiseFunctions: Record<keyof typeof promises, true> = ${keysLiteral(promises)};
      `,
      'members.mts': `
        import * as named from ${lib('index.mjs')};
        import * as standaloneNamed from ${lib('standalone.mjs')};
        export const esm: Record<Exclude<keyof typeof named, 'default'>, true> = ${keysLiteral(qt)};
        export const standaloneEsm: Record<Exclude<keyof typeof standaloneNamed, 'default'>, true> = ${keysLiteral(qt)};
      `,
    });
    t.equal(res.status, 0, res.output);
    t.done();
  },

  'every entry point\'s ES module exports are what its declarations name, through "exports"': function(t) {
    // Node's side: each entry imported by name from inside the package (a self-reference, which
    // resolves through package.json "exports" as an installed copy's would), in a fresh process;
    // 'qtimers/register' first, so that its isInstalled() tells that importing it installed
    const entries = importEntries();
    const source = `
      const names = {};
      let installed = null;
      for (const specifier of ${JSON.stringify(entries.map((e) => e.specifier).sort((a, b) => (b === 'qtimers/register') - (a === 'qtimers/register')))}) {
        const ns = await import(specifier);
        if (installed === null) installed = ns.isInstalled();
        names[specifier] = Object.keys(ns).sort();
      }
      console.log(JSON.stringify({ installed, names }));
    `;
    const res = spawnSync(process.execPath, ['--input-type=module', '-e', source], { cwd: ROOT, encoding: 'utf8', timeout: 20000 });
    let runtime = null;
    try {
      runtime = JSON.parse(res.stdout.trim().split('\n').pop());
    } catch (err) {
      runtime = null;
    }
    t.ok(runtime !== null, `the imports ran: ${res.stdout}${res.stderr}`);
    if (runtime === null) return t.done();
    t.strictEqual(runtime.installed, true, "import { isInstalled } from 'qtimers/register' works, and it installed");
    // TypeScript's side: the same names, from the declarations each import resolves to
    const lines = [];
    entries.forEach((entry, i) => {
      const names = runtime.names[entry.specifier];
      t.ok(names.includes('default'), `${entry.specifier} has a default export`);
      // Node >= 23 also names a CommonJS module's whole exports 'module.exports' (qtimers/promises
      // is one), which TypeScript does not model
      const declared = names.filter((n) => n !== 'default' && n !== 'module.exports');
      const literal = keysLiteral(Object.fromEntries(declared.map((n) => [n, true])));
      lines.push(`import type * as entry${i} from ${JSON.stringify(entry.types)};`);
      lines.push(`export const names${i}: Record<Exclude<keyof typeof entry${i}, 'default'>, true> = ${literal};`);
    });
    const compiled = tscSources({
      'tsconfig.json': JSON.stringify({ compilerOptions: COMPILER_OPTIONS, include: ['entries.mts'] }),
      'entries.mts': lines.join('\n'),
    });
    t.equal(compiled.status, 0, compiled.output);
    t.done();
  },

  'stats(), pending(), trackOrigins() and report() are typed, and qtimers/report is a side effect': function(t) {
    const lib = (file) => JSON.stringify(path.join(ROOT, 'lib', file));
    const res = tscSources({
      'tsconfig.json': JSON.stringify({ compilerOptions: COMPILER_OPTIONS, include: ['uses.cts', 'uses.mts'] }),
      'uses.cts': `
        import qtimers = require(${lib('index.js')});
        import preload = require(${lib('report-preload.js')});
        const s: qtimers.Stats = qtimers.stats({ reset: true });
        const late: number = s.lateness.p99 + s.timeouts.largestLists[0].delay + s.immediates.refed;
        const list: qtimers.PendingTimer[] = qtimers.pending({ refedOnly: true });
        const kind: 'immediate' | 'timeout' | 'interval' = list[0].kind;
        const origin: string | null = list[0].origin;
        qtimers.trackOrigins(true);
        const text: string = qtimers.report();
        // @ts-expect-error trackOrigins takes a boolean
        qtimers.trackOrigins(1);
        // @ts-expect-error no such option
        qtimers.pending({ refed: true });
        // @ts-expect-error qtimers/report exports nothing
        preload.stats();
        export = { late, kind, origin, text };
      `,
      'uses.mts': `
        import { stats, pending, report, type Stats, type PendingTimer } from ${lib('standalone.mjs')};
        import ${lib('report-preload.js')};
        const s: Stats = stats();
        const p: PendingTimer[] = pending();
        export const all = [s, p, report()];
      `,
    });
    t.equal(res.status, 0, res.output);
    t.done();
  },
};
