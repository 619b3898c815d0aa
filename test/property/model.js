/*
 * model: what a program may expect of each timer, replayed from its log, as Node defines it.
 *
 * A timer is pending from its creation until it fires (an interval: until it is cleared) or is
 * cleared; refresh() makes a timeout or interval pending again, even one that has fired, unless
 * it was cleared.  hasRef() is the last ref()/unref() for a Timeout (Node does not change it when
 * the timeout fires or is cleared); an Immediate is unreferenced once it is running, has run or
 * was cleared, and ref() no longer changes that.  The interpreter uses the model to know when a
 * program is done, the checkers to know what should have happened.
 *
 * Loaded by qnit with the whole test/ tree: exports nothing enumerable, does nothing on require.
 */
'use strict';

class Model {
  constructor() {
    this.timers = new Map();    // id -> state
    this.pending = 0;
  }

  state(id) {
    return this.timers.get(id);
  }

  setPending(st, value) {
    if (st.pending !== value) this.pending += value ? 1 : -1;
    st.pending = value;
  }

  /* apply one log event; returns the timer's state, or undefined */
  apply(e) {
    switch (e.e) {
      case 'create': {
        const st = { id: e.id, kind: e.kind, pending: false, cleared: false, refed: true, destroyed: false, revived: false, fires: 0 };
        this.timers.set(e.id, st);
        this.setPending(st, true);
        return st;
      }
      case 'fire': {
        const st = this.timers.get(e.id);
        if (st === undefined) return undefined;
        st.fires += 1;
        if (st.kind === 'immediate') {
          st.destroyed = true;
          st.refed = false;
          this.setPending(st, false);
        } else if (st.kind === 'timeout') {
          this.setPending(st, false);
        }
        return st;
      }
      case 'clear': {
        if (!e.found) return undefined;
        const st = this.timers.get(e.target);
        if (st === undefined) return undefined;
        st.cleared = true;
        this.setPending(st, false);
        if (st.kind === 'immediate') {
          st.destroyed = true;
          st.refed = false;
        }
        return st;
      }
      case 'refresh': {
        if (!e.found) return undefined;
        const st = this.timers.get(e.target);
        if (st === undefined || st.kind === 'immediate' || st.cleared) return st;
        if (!st.pending) st.revived = true;
        this.setPending(st, true);
        return st;
      }
      case 'ref': case 'unref': {
        if (!e.found) return undefined;
        const st = this.timers.get(e.target);
        if (st === undefined) return undefined;
        if (st.kind === 'immediate') st.refed = e.e === 'ref' && !st.destroyed;
        else st.refed = e.e === 'ref';
        return st;
      }
      default:
        return undefined;
    }
  }

  pendingCount() {
    return this.pending;
  }

  pendingIds() {
    const ids = [];
    for (const st of this.timers.values()) if (st.pending) ids.push(st.id);
    return ids;
  }
}

Object.defineProperties(module.exports, {
  Model: { value: Model },
});
