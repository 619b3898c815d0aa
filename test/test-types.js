'use strict';
// The bundled TypeScript declarations: test/types compiles against @types/node (typed uses,
// assignability to Node's own timer types, and @ts-expect-error lines that must not compile),
// and a check generated from the running API that the declarations name exactly its members.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const qt = require('../lib/standalone');
const promises = require('../lib/promises');

const ROOT = path.resolve(__dirname, '..');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

function tsc(project) {
  const res = spawnSync(process.execPath, [TSC, '-p', project], { encoding: 'utf8', timeout: 120000 });
  return { status: res.status, output: `${res.stdout}${res.stderr}${res.error ? res.error.message : ''}` };
}

/* `{ a: true, b: true }` for the enumerable string keys of `object`, as TypeScript source */
function keysLiteral(object) {
  return `{ ${Object.keys(object).map((k) => `${k}: true`).join(', ')} }`;
}

module.exports = {
  'test/types compiles: the declarations fit @types/node, and misuse is rejected': function(t) {
    const res = tsc(path.join(ROOT, 'test', 'types'));
    t.equal(res.status, 0, res.output);
    t.equal(res.output, '');
    t.done();
  },

  'the declarations name exactly the members and knobs the package has at run time': function(t) {
    // Record<keyof X, true> = { ...literal }: a declared name missing at run time is a missing
    // property, a run-time name not declared is an excess property
    const compilerOptions = {
      module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022'],
      types: ['node'], typeRoots: [path.join(ROOT, 'node_modules', '@types')], strict: true, noEmit: true,
    };
    // the declaration files themselves, by path (test/types reaches them through "exports")
    const lib = (file) => JSON.stringify(path.join(ROOT, 'lib', file));
    const sources = {
      'tsconfig.json': JSON.stringify({ compilerOptions, include: ['members.cts', 'members.mts'] }),
      'members.cts': `
        import qtimers = require(${lib('index.js')});
        import promises = require(${lib('promises.js')});
        type Knobs<F> = Exclude<keyof F, '__promisify__'>;
        export const api: Record<keyof typeof qtimers, true> = ${keysLiteral(qt)};
        export const setTimeoutKnobs: Record<Knobs<typeof qtimers.setTimeout>, true> = ${keysLiteral(qt.setTimeout)};
        export const setImmediateKnobs: Record<Knobs<typeof qtimers.setImmediate>, true> = ${keysLiteral(qt.setImmediate)};
        export const promiseFunctions: Record<keyof typeof promises, true> = ${keysLiteral(promises)};
      `,
      'members.mts': `
        import * as named from ${lib('index.mjs')};
        export const esm: Record<Exclude<keyof typeof named, 'default'>, true> = ${keysLiteral(qt)};
      `,
    };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qtimers-types-'));
    try {
      for (const name of Object.keys(sources)) fs.writeFileSync(path.join(dir, name), sources[name]);
      const res = tsc(dir);
      t.equal(res.status, 0, res.output);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    t.done();
  },
};
