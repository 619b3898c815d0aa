/*
 * builtins: the Node modules qtimers is built on, got in a way a bundle of qtimers can run.
 *
 * Owns getting them.  process.getBuiltinModule (Node >= 20.16 and 22.3) where the running Node
 * has it: a bundler leaves that call alone, so an ES module bundle (esbuild's, which has no
 * `require` to give a CommonJS module) gets the modules too.  Elsewhere require(), each written
 * out with its name so that webpack and rollup see which module it is and keep it external.
 * Both hand back the one object Node has for the module (and inside jest, both go through its
 * module registry).
 * It must never load a module qtimers does not use, nor change one.
 */
'use strict';

const getBuiltin = typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule : null;

function builtin(name) {
  return getBuiltin.call(process, name);
}

module.exports = {
  asyncHooks: getBuiltin !== null ? builtin('async_hooks') : require('async_hooks'),
  events: getBuiltin !== null ? builtin('events') : require('events'),
  module: getBuiltin !== null ? builtin('module') : require('module'),
  path: getBuiltin !== null ? builtin('path') : require('path'),
  perfHooks: getBuiltin !== null ? builtin('perf_hooks') : require('perf_hooks'),
  timers: getBuiltin !== null ? builtin('timers') : require('timers'),
  timersPromises: getBuiltin !== null ? builtin('timers/promises') : require('timers/promises'),
  util: getBuiltin !== null ? builtin('util') : require('util'),
  // only the report preload needs it: loaded when first asked for
  get workerThreads() {
    return getBuiltin !== null ? builtin('worker_threads') : require('worker_threads');
  },
};
