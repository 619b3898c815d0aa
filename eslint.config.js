'use strict';
// The one style of lib/, test/ and benchmark/: ESLint's recommended rules and the few below that
// the code keeps everywhere, with the globals each kind of file runs with.  `npm test` runs it first.  The TypeScript files (.d.ts, .mts, .cts:
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
      'no-var': 'error',
      // a `let` that a callback reads before the one assignment (a handle the callback clears) stays
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // `x == null` is the deliberate test for null or undefined
      'eqeqeq': ['error', 'always', { null: 'ignore' }],
      'strict': ['error', 'global'],
      'no-throw-literal': 'error',
      'no-shadow-restricted-names': 'error',
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      'no-caller': 'error',
      'no-proto': 'error',
      'no-extend-native': 'error',
      'no-sequences': 'error',
      'no-return-assign': 'error',
      'no-unused-expressions': 'error',
      'no-useless-call': 'error',
      'no-useless-concat': 'error',
      'no-useless-rename': 'error',
      'no-undef-init': 'error',
      'no-lone-blocks': 'error',
      'no-template-curly-in-string': 'error',
      // an unused argument documents a callback's signature, a rest sibling (`{ value, ...rest }`)
      // is how a property is left out, `_` is a binding a loop needs; other unused names are mistakes
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none', ignoreRestSiblings: true, varsIgnorePattern: '^_$' }],
    },
  },
];
