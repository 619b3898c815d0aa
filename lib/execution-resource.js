/*
 * execution-resource: what async_hooks.executionAsyncResource() answers inside a qtimers callback.
 *
 * Owns the function install.js puts in place of Node's executionAsyncResource.  Natively a timer
 * callback's execution resource is its own handle, so state a program keeps on it stays with
 * that timer.  A qtimers callback runs from a native driver, and with no async context tracked
 * (context.js's mode none) Node answers that driver, one object shared by every callback it
 * runs.  Inside a timeout's callback this answers the running Timeout instead, inside an
 * immediate's the running Immediate, and Node's answer everywhere else: no cost per callback
 * beyond what the drains keep anyway (timeout-drain.js the running timeout, immediates.js the running
 * immediate in its driver's own argument array), a few comparisons per call.  With context
 * tracked, Node's answer is the callback's own AsyncResource, which init hooks saw created for
 * the timer: left as it is.
 * It must never change what Node answers outside a qtimers callback, never allocate, and never
 * use the global (it may be this function).
 */
'use strict';

const asyncHooks = require('./builtins').asyncHooks;
const timeoutListing = require('./timeout-listing');
const immediateListing = require('./immediate-listing');

// captured at load, before install() can replace it
const nodeExecutionAsyncResource = asyncHooks.executionAsyncResource;

function executionAsyncResource() {
  const resource = nodeExecutionAsyncResource();
  const timeout = timeoutListing.executionResource(resource);
  if (timeout !== null) return timeout;
  const imm = immediateListing.executionResource(resource);
  return imm !== null ? imm : resource;
}

module.exports = { executionAsyncResource, nodeExecutionAsyncResource };
