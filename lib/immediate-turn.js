/*
 * immediate-turn: which immediates queued during a drain join the running turn (the young turn
 * rule of setImmediate.maxTickDepth and maxTurnMs), for immediates.js.
 *
 * Owns what the running turn takes of newly queued immediates (none, all up to its budget, or
 * those queued while it is young), when it started, and `joinless`: a turn that ran out of time
 * having run callbacks of LONG_CALLBACK_MS or more on average sets it, and from then on an
 * immediate queued during a drain is carried to the next turn (when nothing else is pending)
 * rather than joining the young turn, until one is queued within LONG_CALLBACK_MS of its turn's
 * start (why: the carrier's entry in docs/decisions.md).
 * It must never queue, run or count an immediate (immediates.js does), never read the clock
 * but in turnIsOver() while `joinless`, and never allocate.
 */
'use strict';

const clock = require('./clock');

// Which newly queued immediates the turn takes, and when it started (in a Float64Array: a
// double in a variable would be a new young heap number at every turn, stored in an old
// object, the very thing the carrier avoids)
const TAKES_NONE = 0;              // none: no budget for new ones (maxTickDepth 0, or maxTurnMs 0)
const TAKES_ALL = 1;               // up to the budget, at any age (maxTurnMs Infinity)
const TAKES_YOUNG = 2;             // up to the budget while the turn is young
let turnTakes = TAKES_NONE;
const TURN_START = 0;
const turnClock = new Float64Array(1);
const LONG_CALLBACK_MS = 0.0125;
let joinless = false;

/*
 * a drain's turn starts at `turnStart` (a precise reading, or 0 when none was needed) with
 * `newBudget` callbacks beyond those queued before it, young for `turnMs`
 */
function turnStarted(newBudget, turnMs, turnStart) {
  turnTakes = newBudget === 0 ? TAKES_NONE : turnMs === Infinity ? TAKES_ALL : TAKES_YOUNG;
  turnClock[TURN_START] = turnStart;
}

/* the turn ran out of time at `age` ms, having run `ran` callbacks: were they long? */
function turnRanOut(age, ran) {
  if (age >= ran * LONG_CALLBACK_MS) joinless = true;
}

/*
 * during a drain: should an immediate queued now wait for the next turn (and may be carried)?
 * While the turns' callbacks are short, no: the check at its pop decides, with no clock read
 * here.  Once a turn ran out of time on long callbacks (`joinless`), yes, unless this turn is
 * still so young that its callbacks are short again, which ends `joinless`.
 */
function turnIsOver() {
  if (turnTakes === TAKES_NONE) return true;
  if (turnTakes === TAKES_ALL || !joinless) return false;
  if (clock.preciseNow() - turnClock[TURN_START] >= LONG_CALLBACK_MS) return true;
  joinless = false;
  return false;
}

module.exports = { turnStarted, turnRanOut, turnIsOver };
