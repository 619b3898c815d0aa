/*
 * coarse: the opt-in coarse timeouts (setTimeout.coarse, QTIMERS_COARSE, qtimers.coarse(timer)).
 *
 * Owns which timeouts are coarse and where they wait until due (timeout-counts.js counts them).  A
 * coarse timer is armed and refresh()ed without a clock read and without moving: the call only
 * notes it in the unsettled list (its _flags carry its place there; a refresh() of a timer
 * waiting in a slot is listed as often as it is called, its flags untouched).  One reading taken
 * after all the noted calls settles the list: at the start of a drain (before any callback of it
 * runs) or at a settle wakeup asked of the driver for TAU ms after the first note.  Settling
 * stamps each timer's start (_idleStart) with that reading, so it is never early (a timer listed
 * twice takes the sequence of its later call) and lets go of any the list still holds after a
 * clear (a slotted timer refreshed, then cleared, is held that long); a new timer goes into the
 * slot of its expiry rounded up to its granularity (the largest power of two <= delay/16); a timer
 * already in a slot stays there (its slot fires earlier than its new expiry, and it is moved on
 * then: at most once per delay).  When slots are due (a drain), their due timers are handed to
 * timeout-drain.js, which runs them with every exact timer's semantics; the others are re-slotted.
 * One-delay order: a timer is handed over in the slot of its expiry (never from a slot it was
 * left in that fires late), the due ones sorted by (expiry, start, settle sequence), the
 * sequence kept in the high bits of _flags (no memory per timer).
 * Late by at most granularity(delay) + TAU beyond when Node would fire, counted from the end of
 * the synchronous work that made the call (a settle needs the program back in the event loop),
 * TAU being granularity(coarseFrom) / 2 (at least 1 ms): under delay/8 for delays >= coarseFrom.
 * A pending coarse timer's _idlePrev is never null (UNSETTLED, a slot link, or the exact store's
 * link once handed over), so timeouts.js's reference count, ref(), unref() and clear work as for
 * exact ones.
 * It must never call user code, never read the clock when a timer is armed or refreshed (only
 * when a settle is due: a drain, the settle wakeup, a full list), never stamp a start with a
 * reading older than the call it settles, and never import timeouts.js (which calls it).
 */
'use strict';

// qtimers' own code from here to the end() at the bottom (own-frames.js)
const ownFrom = require('./own-frames').begin();

const clock = require('./clock');
const { wantDriverBy, uncountRef } = require('./timeout-driver');
const { settled } = require('./refresh-batch');
const { CoarseSlots } = require('./coarse-slots');
const { REFED, CLEARED, COARSE, FORCED, NOTED, SLOTTED, FLAG_BITS } = require('./flags');

const proc = process;
const TIMEOUT_MAX = 2 ** 31 - 1;

// A timer's _flags above FLAG_BITS: its place in the unsettled list while NOTED, else its settle
// sequence (order among timers settled by one reading).
const LOW = (1 << FLAG_BITS) - 1;
const MAX_SEQ = (1 << (30 - FLAG_BITS)) - 1;
// The unsettled list is settled at once by a clock read when it holds this many notes: one read
// per 1024 calls at most, and the timers settled are the ones just touched, still in the CPU's
// caches (docs/decisions.md, 2026-11-27).
const UNSETTLED_MAX = 1024;

const settings = {
  on: false,        // setTimeout.coarse
  from: 1000,       // setTimeout.coarseFrom: delays >= this are coarse while `on`
};
// `active`: some timer may be coarse (the knob was on, or coarse() was called): timeouts.js
// asks this module only then
const state = { active: false };
// the least _idleTimeout coarse by the knob (trunc(delay) >= from), Infinity while it is off
let knobMin = Infinity;
let tau = 16;       // ms from the first note to the settle wakeup asked for

// The _idlePrev of a pending coarse timer that is in no slot yet (armed, not settled).
const UNSETTLED = Object.freeze({ unsettled: true });

const slots = new CoarseSlots();
const unsettled = [];             // the notes, unsettled[0 .. noted[0]): a timer, or null
for (let i = 0; i < UNSETTLED_MAX; i++) unsettled.push(null);   // packed, never holey, never grown
// noted[0]: how many notes; an Int32Array's element, not a `let`: a refresh() that stores to a
// module `let` (after its hole check) ran far slower among timers out of the CPU's caches
// (docs/decisions.md, 2026-11-27)
const noted = new Int32Array(1);
let lastReading = clock.now();   // the latest settle reading (a settle wakeup counts from it)
let seqReading = -1;             // the reading the sequence counts for
let seq = 0;
const due = [];                  // reused by handOverSorted

// The exact store's list coarse timers are handed over to when due (no exact timer has a delay
// under 1 ms): all due, in the order handed over; keyed by its head's start, never later than due.
const COARSE_DUE = 0;

/* a pending timer leaves the exact store (it stays pending and counted: this module links it) */
function takeFromStore(timer) {
  settled().unlink(timer);
}

// ---------------------------------------------------------------- granularity

/* the largest power of two <= delay/16, at least 1 */
function granularity(delay) {
  const q = delay >>> 4;          // < 2^27: the shift stays a small integer
  return q === 0 ? 1 : 1 << (31 - Math.clz32(q));
}

/* the slot time of `expiry` for a timer of `delay`: rounded up to the delay's granularity */
function slotTime(expiry, delay) {
  const g = granularity(delay);
  const r = expiry % g;
  return r === 0 ? expiry : expiry + g - r;
}

function setFrom(value) {
  settings.from = value;
  tau = Math.max(1, granularity(Math.trunc(value)) / 2);
  knobMin = settings.on ? Math.ceil(value) : Infinity;
}

function setOn(value) {
  settings.on = value;
  knobMin = value ? Math.ceil(settings.from) : Infinity;
  if (value) state.active = true;
}

/* coarse now, by its own mark or by the knob */
function wants(timer, f) {
  return (f & FORCED) !== 0 || (settings.on && Math.trunc(timer._idleTimeout) >= settings.from);
}

function nextSeq(reading) {
  if (reading !== seqReading) {
    seqReading = reading;
    seq = 0;
  }
  const s = seq;
  if (seq < MAX_SEQ) seq += 1;
  return s;
}

// ---------------------------------------------------------------- arm, refresh, clear

/* the unsettled list takes `timer` (settled first if full, by a reading after its calls): its place */
function listed(timer) {
  let n = noted[0];
  if (n === UNSETTLED_MAX) {
    settle(clock.now());
    n = 0;
  }
  unsettled[n] = timer;
  noted[0] = n + 1;
  return n;
}

/* note a pending coarse timer (flags `f`) as armed or refreshed now: no clock, no move */
function note(timer, f) {
  if ((f & NOTED) !== 0 && (f >>> FLAG_BITS) === noted[0] - 1) return;   // the latest note already
  const n = listed(timer);
  // its flags read again: a settle of the full list may have changed them
  timer._flags = ((timer._flags | COARSE) & LOW) | NOTED | (n << FLAG_BITS);
  if (n === 0) wantDriverBy(lastReading + tau);
}

/*
 * note a timer waiting in a slot as refreshed now: the list takes it, its flags are not written
 * (fewer stores to a timer out of the caches); settle() finds it still slotted and not cleared
 */
function noteSlotted(timer) {
  if (listed(timer) === 0) wantDriverBy(lastReading + tau);
}

/* a new timeout (flags and delay set): true if coarse, then pending and noted */
function armed(timer) {
  const f = timer._flags;
  if (!wants(timer, f)) return false;
  timer._idlePrev = UNSETTLED;
  timer._idleStart = lastReading;   // shown until settled: the latest reading
  note(timer, f | COARSE);
  return true;
}

/*
 * a timeout is (re-)armed from a known `start` (an interval's next period, a revived timer):
 * true if coarse, then in its slot.  `fresh`: `start` was read at this call, after every note,
 * so the notes are settled by it first (they were called before this one).
 */
function armedAt(timer, start, fresh) {
  const f = timer._flags;
  if (!wants(timer, f)) {
    if ((f & COARSE) !== 0) timer._flags = f & LOW & ~(COARSE | NOTED | SLOTTED);
    return false;
  }
  if (fresh && noted[0] !== 0) settle(start);
  const delay = Math.trunc(timer._idleTimeout);
  timer._idleStart = start;
  timer._flags = (f & LOW & ~NOTED) | COARSE | SLOTTED | (nextSeq(start) << FLAG_BITS);
  const time = slotTime(start + delay, delay);
  slots.add(timer, time);
  wantDriverBy(time);
  return true;
}

/* refresh() of a pending timer: true if coarse (noted); false: timeouts.js's exact path */
function refreshed(timer) {
  const f = timer._flags;
  // the common case first: in a slot (so pending and coarse) and still coarse by the knob
  if ((f & (SLOTTED | FORCED)) === SLOTTED && timer._idleTimeout >= knobMin) {
    noteSlotted(timer);
    return true;
  }
  const prev = timer._idlePrev;
  if (prev === null) return false;          // not pending: revived by the exact path (armedAt)
  if (!wants(timer, f)) {
    if ((f & COARSE) === 0) return false;
    // coarse no more (the knob changed): taken out, then refreshed as a timer not pending
    if (!unlinked(timer)) takeFromStore(timer);
    timer._flags &= ~COARSE;
    if (f & REFED) uncountRef();
    return false;
  }
  if ((f & SLOTTED) === 0 && prev !== UNSETTLED) {
    // an exact pending one (the knob turned on since), or a coarse one handed over, not yet run
    takeFromStore(timer);
    timer._idlePrev = UNSETTLED;
  }
  note(timer, f | COARSE);
  return true;
}

/* a pending coarse timer leaves (cleared): true, or false if it is in the exact store */
function unlinked(timer) {
  const f = timer._flags;
  if ((f & SLOTTED) !== 0) slots.unlink(timer);
  else if (timer._idlePrev === UNSETTLED) timer._idlePrev = null;
  else return false;
  if ((f & NOTED) !== 0) {
    // its note goes (the last one, as in a set/clear loop) or lets the timer go: a cleared new
    // timer is garbage at once, as an exact one is
    const at = f >>> FLAG_BITS;
    unsettled[at] = null;
    if (at === noted[0] - 1) noted[0] = at;
  }
  timer._flags = f & ~(NOTED | SLOTTED);
  return true;
}

/* qtimers.coarse(timer) (a Timeout of ours): coarse from now on, whatever its delay */
function mark(timer) {
  state.active = true;
  const f = timer._flags;
  timer._flags = f | FORCED;
  if ((f & COARSE) !== 0 || timer._idlePrev === null) return;   // already, or from its next arming
  takeFromStore(timer);                // pending exact: to a slot, with the start it has
  armedAt(timer, timer._idleStart, false);
}

// ---------------------------------------------------------------- settle and fire

/* every noted timer starts at `now`, a reading taken after all their calls */
function settle(now) {
  lastReading = now;
  const n = noted[0];
  if (n === 0) return;
  noted[0] = 0;
  if (now !== seqReading) {
    seqReading = now;
    seq = 0;
  }
  let s = seq;
  for (let i = 0; i < n; i++) {
    const timer = unsettled[i];
    if (timer === null) continue;         // cleared
    unsettled[i] = null;
    const f = timer._flags;
    if ((f & NOTED) !== 0) {
      if ((f >>> FLAG_BITS) !== i) continue;   // noted again later
    } else if ((f & (SLOTTED | CLEARED)) !== SLOTTED) {
      continue;      // a slotted one's refresh(): cleared since (it keeps SLOTTED), or exact again
    }
    timer._idleStart = now;
    timer._flags = (f & LOW & ~NOTED) | SLOTTED | (s << FLAG_BITS);
    if (s < MAX_SEQ) s += 1;
    if ((f & SLOTTED) === 0) {
      const delay = Math.trunc(timer._idleTimeout);
      slots.add(timer, slotTime(now + delay, delay));
    }
  }
  seq = s;
  wantDriverBy(slots.firstTime());
}

function byDue(a, b) {
  return (a._idleStart + Math.trunc(a._idleTimeout)) - (b._idleStart + Math.trunc(b._idleTimeout)) ||
    a._idleStart - b._idleStart || (a._flags >>> FLAG_BITS) - (b._flags >>> FLAG_BITS);
}

/* the due timers chained from `first` (the last one's _idleNext null), sorted, handed over */
function handOverSorted(first) {
  for (let timer = first; timer !== null; timer = timer._idleNext) due.push(timer);
  due.sort(byDue);
  const store = settled();
  for (let i = 0; i < due.length; i++) store.append(due[i], COARSE_DUE);   // run by the drain
  due.length = 0;
}

/*
 * the slots due by `now`: due timers handed over in one-delay order, the others re-slotted.  The
 * due ones are chained through their own links as they are met; met in order (the common case: a
 * slot's timers were settled in order), the chain is handed over whole, else sorted first.
 */
function fireDue(now) {
  let first = null;
  let last = null;
  let ordered = true;
  let slot;
  while ((slot = slots.takeDue(now)) !== null) {
    let timer = slot._idleNext;
    while (timer !== slot) {
      const next = timer._idleNext;
      const delay = Math.trunc(timer._idleTimeout);
      const expiry = timer._idleStart + delay;
      const time = slotTime(expiry, delay);
      // due in its own slot (that of its expiry) only, even when a slot it was left in fires
      // late: timers of one delay are handed over in the order of their expiries
      if (time <= slot.time) {
        timer._flags &= ~SLOTTED;
        if (last === null) {
          first = timer;
        } else {
          last._idleNext = timer;
          if (ordered && byDue(last, timer) > 0) ordered = false;
        }
        timer._idlePrev = last;
        last = timer;
      } else {
        slots.add(timer, time);
      }
      timer = next;
    }
  }
  if (last !== null) {
    last._idleNext = null;
    if (ordered) settled().appendChain(first, last, COARSE_DUE);   // run by the drain
    else handOverSorted(first);
  }
  wantDriverBy(slots.firstTime());
}

/* a drain starts with the reading `now` (before any callback): settle, then hand over what is due */
function atDrain(now) {
  settle(now);
  fireDue(now);
}

/* visit(timer, delay) for every pending coarse timer not handed over */
function forEachPending(visit) {
  slots.forEach(function visitSlotted(timer) {
    visit(timer, Math.trunc(timer._idleTimeout));
  });
  for (let i = 0; i < noted[0]; i++) {
    const timer = unsettled[i];
    if (timer === null) continue;
    const f = timer._flags;
    if ((f & (NOTED | SLOTTED)) === NOTED && (f >>> FLAG_BITS) === i) visit(timer, Math.trunc(timer._idleTimeout));
  }
}

// ---------------------------------------------------------------- the environment

// QTIMERS_COARSE=1|true|on (0|false|off) and QTIMERS_COARSE_FROM=<ms>, read once at load: a bad
// value is ignored with one warning, never thrown at startup.
const ON = ['1', 'true', 'on'];
const OFF = ['0', 'false', 'off', ''];

function fromEnvironment(env) {
  const bad = [];
  const on = env.QTIMERS_COARSE;
  if (on !== undefined) {
    const v = on.trim().toLowerCase();
    if (ON.includes(v)) setOn(true);
    else if (!OFF.includes(v)) bad.push(`QTIMERS_COARSE=${JSON.stringify(on)} (expected 1, true, on, 0, false or off)`);
  }
  const from = env.QTIMERS_COARSE_FROM;
  if (from !== undefined) {
    const ms = from.trim() === '' ? NaN : Number(from);
    if (ms >= 1 && ms <= TIMEOUT_MAX) setFrom(ms);
    else bad.push(`QTIMERS_COARSE_FROM=${JSON.stringify(from)} (expected a number of ms from 1 to ${TIMEOUT_MAX})`);
  }
  if (bad.length !== 0) {
    proc.emitWarning(`qtimers ignores ${bad.join(' and ')}.`, { code: 'QTIMERS_BAD_ENV' });
  }
}

setFrom(settings.from);
fromEnvironment(proc.env);

module.exports = {
  settings, state, TIMEOUT_MAX,
  setOn, setFrom, armed, armedAt, refreshed, unlinked, mark, atDrain, forEachPending,
  granularity, COARSE_DUE,
};

require('./own-frames').end(ownFrom);
