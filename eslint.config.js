'use strict';
// The one style of lib/, test/ and benchmark/: ESLint's recommended rules, with the globals each
// kind of file runs with.  `npm test` runs it first.  The TypeScript files (.d.ts, .mts, .cts:
// declarations and type tests) are not linted here: test/system/test-types.js compiles them with tsc.

const js = require('@eslint/js');
const globals = require('globals');

module.exports = [
  {
    ignores: [
      'node_modules/**',
      'test/fixtures/**/node_modules/**',
      'coverage/**',
      'benchmark/results/**',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'commonjs',
      globals: { ...globals.node },
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
  },
  {
    // a test file that jest runs, using its globals (the others import them from @jest/globals)
    files: ['test/fixtures/context/jest/**/*.js'],
    languageOptions: { globals: { ...globals.jest } },
  },
  {
    // a spec file that mocha runs, using its globals
    files: ['test/fixtures/context/mocha/**/*.js'],
    languageOptions: { globals: { ...globals.mocha } },
  },
  {
    rules: {
      // an unused argument documents a callback's signature, a rest sibling (`{ value, ...rest }`)
      // is how a property is left out, `_` is a binding a loop needs; other unused names are mistakes
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none', ignoreRestSiblings: true, varsIgnorePattern: '^_$' }],
    },
  },
];
