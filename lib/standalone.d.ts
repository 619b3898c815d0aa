// Type declarations for the qtimers API as CommonJS: require('qtimers/standalone') gives this
// object, and so do require('qtimers'), 'qtimers/install' and 'qtimers/register' (index.d.ts,
// which also types what installing adds to the globals).  The functions are typed as @types/node
// types Node's own, and their handles are Node's NodeJS.Timeout and NodeJS.Immediate, so qtimers
// can stand wherever those are expected.  @types/node is a peer dependency (optional for
// JavaScript users): without it nothing here type checks.

/// <reference types="node" />

import * as promises from './promises';

// As @types/node does: a single void argument may be left out, so that
// `new Promise<void>((resolve) => setTimeout(resolve, 10))` type checks.
type VoidArgumentOptional<TArgs extends any[]> = [void] extends TArgs ? Partial<TArgs> : TArgs;

declare namespace qtimers {
  /** The handle setTimeout and setInterval return. */
  type Timeout = NodeJS.Timeout;
  /** The handle setImmediate returns. */
  type Immediate = NodeJS.Immediate;

  interface InstallOptions {
    /**
     * Also replace the timer functions of Node's `timers` and `timers/promises` modules, so code
     * that imports them gets qtimers as well.
     * @default true
     */
    timersModule?: boolean | undefined;
  }

  /** What stats() returns: counts since start or the last `stats({ reset: true })`, and what is pending now. */
  interface Stats {
    immediates: {
      /** Pending immediates. */
      pending: number;
      /** Of them, referenced (keeping the process alive). */
      refed: number;
      /** Callbacks run (those that threw included). */
      ran: number;
      /** Callbacks that threw. */
      threw: number;
      /** Event-loop turns that ran immediates. */
      drains: number;
    };
    timeouts: {
      /** Pending timeouts and intervals. */
      pending: number;
      /** Of them, intervals. */
      intervals: number;
      /** Of them, referenced (keeping the process alive). */
      refed: number;
      /** Callbacks run (each run of an interval counts; those that threw included). */
      ran: number;
      /** Callbacks that threw. */
      threw: number;
      /** Wakeups of qtimers' native timer. */
      drains: number;
      /** Distinct delays among the pending timers. */
      delays: number;
      /** The delays with the most pending timers, most first (up to 5). */
      largestLists: Array<{ delay: number; pending: number }>;
    };
    /**
     * How long after its due time each timeout's or interval's callback started, in whole
     * milliseconds (by the reading its batch was run by): from a log-scale histogram, so p50 and
     * p99 are exact below 16 ms and within 1/8 above; count, mean and max are exact.  All 0 when
     * none has fired.
     */
    lateness: { count: number; mean: number; p50: number; p99: number; max: number };
    /**
     * Coarse timeouts and intervals apart (setTimeout.coarse, coarse()): pending (also counted
     * in timeouts.pending), of them referenced, callbacks run (also in timeouts.ran), and their
     * lateness beyond their own due time (left out of `lateness`).
     */
    coarse: {
      pending: number;
      refed: number;
      ran: number;
      lateness: { count: number; mean: number; p50: number; p99: number; max: number };
    };
  }

  interface StatsOptions {
    /** Zero the counts (ran, threw, drains, lateness) after reading them. @default false */
    reset?: boolean | undefined;
  }

  /** One pending handle, as pending() lists it. */
  interface PendingTimer {
    kind: 'immediate' | 'timeout' | 'interval';
    /** The delay in ms (0 for an immediate). */
    delay: number;
    /** Milliseconds until it is due (0 for an immediate; negative when overdue). */
    msUntilDue: number;
    /** Whether it keeps the process alive. */
    ref: boolean;
    /** The callback's name, '(anonymous)' if it has none. */
    callback: string;
    /** Where it was created (the first stack frame outside qtimers), if trackOrigins(true) was on then. */
    origin: string | null;
    /** The whole creation stack outside qtimers, one frame a line, if recorded. */
    stack: string | null;
  }

  interface PendingOptions {
    /** Only the referenced handles: what keeps the process alive. @default false */
    refedOnly?: boolean | undefined;
  }

  /** The class of the handles setTimeout and setInterval return; not constructible by programs. */
  const Timeout: abstract new (...args: never[]) => NodeJS.Timeout;
  /** The class of the handles setImmediate returns; not constructible by programs. */
  const Immediate: abstract new (...args: never[]) => NodeJS.Immediate;

  /**
   * Put qtimers in place of the global timer functions (and, unless told otherwise, of the
   * `timers` and `timers/promises` exports).  May be called again, with other options.
   */
  function install(options?: InstallOptions): typeof qtimers;
  /** Put back the timer functions install() replaced.  qtimers handles already made still work. */
  function uninstall(): typeof qtimers;
  /** Whether install() is in effect. */
  function isInstalled(): boolean;

  /** Call `callback(...args)` once, after the current event loop phase. */
  function setImmediate<TArgs extends any[]>(
    callback: (...args: TArgs) => void,
    ...args: VoidArgumentOptional<TArgs>
  ): NodeJS.Immediate;
  namespace setImmediate {
    /**
     * How many immediates one turn of the event loop runs: 0, those queued before the turn, as
     * Node does; -N, those plus up to N queued while it runs; N > 0, up to N in all, newly queued
     * ones included.  An integer.
     */
    let maxTickDepth: number;
    /**
     * Immediates queued while a turn runs are run in the same turn only while it is younger than
     * this many milliseconds (0: none, as Node does).  A number >= 0.  @default 0.05
     */
    let maxTurnMs: number;
    const __promisify__: typeof promises.setImmediate;
  }

  /** Call `callback(...args)` once, `delay` milliseconds from now. */
  function setTimeout<TArgs extends any[]>(
    callback: (...args: TArgs) => void,
    delay?: number,
    ...args: VoidArgumentOptional<TArgs>
  ): NodeJS.Timeout;
  namespace setTimeout {
    /** The delay used for a delay that is missing, too small, too large or not a number. @default 1 */
    let MIN_TIMEOUT: number;
    /** The largest delay taken as given. @default 2147483647 */
    let MAX_TIMEOUT: number;
    /**
     * Read the clock for every timer made, as Node does, rather than once per synchronous batch.
     */
    let exactStart: boolean;
    /**
     * Coarse timeouts and intervals: those of a delay >= coarseFrom fire never early and at most
     * about 1/8 of their delay late, for arming, refresh() and clearing that read no clock.
     * @default false (or QTIMERS_COARSE=1)
     */
    let coarse: boolean;
    /** The smallest delay setTimeout.coarse makes coarse, ms (>= 1). @default 1000 (or QTIMERS_COARSE_FROM) */
    let coarseFrom: number;
    const __promisify__: typeof promises.setTimeout;
  }

  /** Call `callback(...args)` every `delay` milliseconds until cleared. */
  function setInterval<TArgs extends any[]>(
    callback: (...args: TArgs) => void,
    delay?: number,
    ...args: VoidArgumentOptional<TArgs>
  ): NodeJS.Timeout;

  /** Cancel an immediate; anything else is ignored. */
  function clearImmediate(immediate: NodeJS.Immediate | null | undefined): void;
  /** Cancel a timeout or an interval, by handle or by its primitive id; anything else is ignored. */
  function clearTimeout(timeout: NodeJS.Timeout | string | number | null | undefined): void;
  /** Cancel an interval or a timeout, by handle or by its primitive id; anything else is ignored. */
  function clearInterval(timeout: NodeJS.Timeout | string | number | null | undefined): void;

  /** The time setTimeout stamps timers with now, in epoch milliseconds. */
  function currentTimestamp(): number;

  /**
   * Make this timeout or interval coarse (never early, at most about 1/8 of its delay late),
   * whatever its delay and setTimeout.coarse; returns it.
   */
  function coarse<T extends NodeJS.Timeout>(timer: T): T;

  /**
   * Carry each callback's async context (AsyncLocalStorage, async_hooks, domains) from now on.
   * qtimers switches this on by itself when it sees them in use; call it when hooks or stores
   * were already active before qtimers was loaded.
   */
  function trackAsyncContext(): void;

  /** Counts of what is pending, what has run and how late timeouts ran (see Stats). */
  function stats(options?: StatsOptions): Stats;
  /** The pending handles: immediates first, then timeouts and intervals by due time. */
  function pending(options?: PendingOptions): PendingTimer[];
  /**
   * Record where each handle made from now on is created (a captured stack, a few microseconds
   * per timer), shown by pending() and report().  Off by default.
   */
  function trackOrigins(enabled: boolean): void;
  /** stats() and pending() as a table for people to read. */
  function report(): string;
}

export = qtimers;
