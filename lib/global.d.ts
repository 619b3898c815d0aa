// What installing qtimers adds to the globals, for TypeScript: the knobs on the global timer
// functions (which are then qtimers' own) and the global currentTimestamp().  Merged into
// @types/node's declarations of those functions; brought in by index.d.ts and index.d.mts, the
// types of the entries that install ('qtimers', 'qtimers/install', 'qtimers/register'), and
// never by 'qtimers/standalone', which leaves the globals alone.

/// <reference types="node" />

export {};

declare global {
  namespace setImmediate {
    /**
     * qtimers: how many immediates one turn of the event loop runs: 0, those queued before the
     * turn, as Node does; -N, those plus up to N queued while it runs; N > 0, up to N in all.
     * An integer.
     */
    let maxTickDepth: number;
    /**
     * qtimers: immediates queued while a turn runs are run in the same turn only while it is
     * younger than this many milliseconds (0: none, as Node does).  A number >= 0.  @default 0.05
     */
    let maxTurnMs: number;
  }

  namespace setTimeout {
    /** qtimers: the delay used for a delay that is missing, too small, too large or not a number. @default 1 */
    let MIN_TIMEOUT: number;
    /** qtimers: the largest delay taken as given. @default 2147483647 */
    let MAX_TIMEOUT: number;
    /**
     * qtimers: read the clock for every timer made, as Node does, rather than once per batch.
     */
    let exactStart: boolean;
    /** qtimers: coarse timeouts and intervals for delays >= coarseFrom (never early). @default false */
    let coarse: boolean;
    /** qtimers: the smallest delay setTimeout.coarse makes coarse, ms. @default 1000 */
    let coarseFrom: number;
  }

  /** qtimers: the time setTimeout stamps timers with now, in epoch milliseconds. */
  function currentTimestamp(): number;
}
