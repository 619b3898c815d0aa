/*
 * callback-context: the async-context side of running a qtimers callback, shared by the two drains.
 *
 * Owns deciding, for one handle about to run, whether its callback must be called inside an
 * async scope (its own AsyncResource, or qtimers' root scope for a callback scheduled before
 * context tracking began) and doing that call; and releasing a handle's context once it is
 * done (hooks see it destroyed, as a native timer's).  A drain makes the plain call itself when
 * no scope is needed: that call is the hot path and must stay a method call on the handle.
 * It must never keep a context after its handle let go of it, and never call a callback that
 * the caller is to call (calledInContext() answers which of the two happened).
 */
'use strict';

// qtimers' own code from here to the end() at the bottom (own-frames.js)
const ownFrom = require('./own-frames').begin();

const context = require('./context');
const { CONTEXT } = require('./flags');

const contextState = context.state;
const NONE = context.NONE;

/*
 * call `fn` with `handle` as this and `args` (an array or undefined) if it must run inside an
 * async scope, and answer true; answer false, calling nothing, when the caller is to call it
 * plainly (it carries no context and none is tracked)
 */
function calledInContext(handle, fn, args, flags) {
  if (flags & CONTEXT) {
    const ctx = handle._asyncContext;
    if (context.inTurn(ctx)) return false;    // its frame is current already: called plainly
    context.callIn(ctx, fn, handle, args);
    return true;
  }
  if (contextState.mode === NONE) return false;
  context.callWithoutContext(fn, handle, args);
  return true;
}

/* the handle is done with its context (ran for good, cleared or thrown out of) */
function releaseContext(handle) {
  const ctx = handle._asyncContext;
  handle._asyncContext = null;
  handle._flags &= ~CONTEXT;
  if (ctx !== null) context.release(ctx);
}

module.exports = { calledInContext, releaseContext };

require('./own-frames').end(ownFrom);
