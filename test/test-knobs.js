'use strict';
// The knobs (setImmediate.maxTickDepth and maxTurnMs, setTimeout.MIN_TIMEOUT, MAX_TIMEOUT and
// exactStart): valid values round-trip; a value of the wrong type or range throws what Node
// throws for the same value handed to one of its own validators (class, code, message with the
// knob's name, toString, util.inspect, stack from the assignment) and leaves the setting as it
// was; no string is coerced.  A delay above MAX_TIMEOUT warns as Node's overflow does, compared
// with native's TimeoutOverflowWarning for 2^31 in a child process.

const crypto = require('crypto');
const util = require('util');
const zlib = require('zlib');
const qt = require('../lib/standalone');
const { runJson } = require('./helpers/child');

const TIMEOUT_MAX = 2 ** 31 - 1;

// name -> [owner, property]
const KNOBS = {
  'setImmediate.maxTickDepth': [qt.setImmediate, 'maxTickDepth'],
  'setImmediate.maxTurnMs': [qt.setImmediate, 'maxTurnMs'],
  'setTimeout.MIN_TIMEOUT': [qt.setTimeout, 'MIN_TIMEOUT'],
  'setTimeout.MAX_TIMEOUT': [qt.setTimeout, 'MAX_TIMEOUT'],
  'setTimeout.exactStart': [qt.setTimeout, 'exactStart'],
  'setTimeout.coarse': [qt.setTimeout, 'coarse'],
  'setTimeout.coarseFrom': [qt.setTimeout, 'coarseFrom'],
};

// the defaults, as loaded, put back after each test (MIN_TIMEOUT after MAX_TIMEOUT: each bounds the other)
const DEFAULTS = Object.keys(KNOBS).map((name) => [name, KNOBS[name][0][KNOBS[name][1]]]);

function restoreDefaults() {
  qt.setTimeout.MIN_TIMEOUT = 0;
  for (const [name, value] of DEFAULTS) KNOBS[name][0][KNOBS[name][1]] = value;
}

/* the error assigning `value` to knob `name` throws (null if none) */
function assignmentError(name, value) {
  const [owner, property] = KNOBS[name];
  try {
    owner[property] = value;
  } catch (err) {
    return err;
  }
  return null;
}

function thrown(fn) {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return null;
}

/*
 * Node's own ERR_INVALID_ARG_TYPE for `value`: zlib's `options.level` (a property name, as a
 * knob's is), or for the values zlib takes (numbers, undefined) Buffer.from's first argument.
 */
function nodeTypeError(value) {
  const err = thrown(() => zlib.createGzip({ level: value }));
  if (err !== null) return err;
  return thrown(() => Buffer.from(value));
}

/* Node's own ERR_OUT_OF_RANGE for the number `value`: a Buffer's read offset (0 is valid there) */
function nodeRangeError(value) {
  if (value === 0) return thrown(() => crypto.randomInt(0, 0));   // max must be more than min
  return thrown(() => Buffer.alloc(1).readUInt8(value));
}

function receivedPart(message) {
  return message.slice(message.indexOf('. Received ') + '. Received '.length);
}

/* `ours` is an error of the same make as Node's `reference`, with `message` */
function sameMake(t, ours, reference, message, what) {
  t.ok(ours !== null, `${what}: throws`);
  if (ours === null) return;
  // (not the prototype itself: Node's own errors of one code have different ones, by validator)
  t.ok(ours instanceof (reference instanceof RangeError ? RangeError : TypeError), `${what}: ${reference.name}`);
  t.strictEqual(ours.constructor, reference.constructor, what);
  t.strictEqual(ours.name, reference.name, what);
  t.strictEqual(ours.code, reference.code, what);
  t.strictEqual(ours.message, message, what);
  t.deepEqual(Object.keys(ours), Object.keys(reference), `${what}: own enumerable keys`);
  t.strictEqual(String(ours), String(reference).replace(reference.message, message), `${what}: toString`);
  const inspected = util.inspect(ours).split('\n');
  t.strictEqual(inspected[0], `${reference.name} [${reference.code}]: ${message}`, `${what}: util.inspect`);
  t.ok(/test-knobs\.js/.test(inspected[1]), `${what}: the stack starts at the assignment: ${inspected[1]}`);
}

/* assigning `value` to `name` throws Node's ERR_INVALID_ARG_TYPE for `type`, and changes nothing */
function refusesType(t, name, type, value) {
  const [owner, property] = KNOBS[name];
  const before = owner[property];
  const reference = nodeTypeError(value);
  t.strictEqual(reference.code, 'ERR_INVALID_ARG_TYPE');
  const message = `The "${name}" property must be of type ${type}. Received ${receivedPart(reference.message)}`;
  sameMake(t, assignmentError(name, value), reference, message, `${name} = ${util.inspect(value)}`);
  t.strictEqual(owner[property], before, `${name} unchanged`);
}

/* assigning the number `value` to `name` throws Node's ERR_OUT_OF_RANGE "It must be `range`" */
function refusesRange(t, name, range, value) {
  const [owner, property] = KNOBS[name];
  const before = owner[property];
  const reference = nodeRangeError(value);
  t.strictEqual(reference.code, 'ERR_OUT_OF_RANGE');
  const message = `The value of "${name}" is out of range. It must be ${range}. Received ${receivedPart(reference.message)}`;
  sameMake(t, assignmentError(name, value), reference, message, `${name} = ${util.inspect(value)}`);
  t.strictEqual(owner[property], before, `${name} unchanged`);
}

// wrong types: strings (numeric ones too: no coercion), and one of each other kind
const NOT_NUMBERS = ['0', '', '5', '1e3', ' 1 ', 'lots', 'a-string-longer-than-twenty-eight-characters',
  true, false, null, undefined, {}, [], [1], new Number(1), Object.create(null), function named() {},
  () => {}, Symbol('s'), 10n];
const NOT_BOOLEANS = ['false', 'true', '', 0, 1, NaN, null, undefined, {}, new Boolean(false), Symbol('s'), 1n];

module.exports = {
  tearDown: function(done) { restoreDefaults(); done(); },

  'the defaults are Node\'s delay limits, and values each knob itself accepts': function(t) {
    t.strictEqual(qt.setTimeout.MIN_TIMEOUT, 1);
    t.strictEqual(qt.setTimeout.MAX_TIMEOUT, TIMEOUT_MAX);
    t.strictEqual(typeof qt.setTimeout.exactStart, 'boolean');
    t.ok(Number.isSafeInteger(qt.setImmediate.maxTickDepth));
    t.done();
  },

  'Node words a dotted name as a property, as the knob errors do': function(t) {
    const err = nodeTypeError('0');
    t.strictEqual(err.message, 'The "options.level" property must be of type number. Received type string (\'0\')');
    t.done();
  },

  'valid values round-trip': function(t) {
    for (const v of [0, 1, 2, -1, -10, 1000, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, -0]) {
      qt.setImmediate.maxTickDepth = v;
      t.ok(Object.is(qt.setImmediate.maxTickDepth, v), `maxTickDepth ${v}`);
    }
    for (const v of [0, 0.5, 1, 1000, Infinity, Number.MAX_VALUE]) {
      qt.setImmediate.maxTurnMs = v;
      t.strictEqual(qt.setImmediate.maxTurnMs, v, `maxTurnMs ${v}`);
    }
    for (const v of [0, 1, 2.5, 100, TIMEOUT_MAX]) {
      qt.setTimeout.MIN_TIMEOUT = v;
      t.strictEqual(qt.setTimeout.MIN_TIMEOUT, v, `MIN_TIMEOUT ${v}`);
    }
    qt.setTimeout.MIN_TIMEOUT = 1;
    for (const v of [1, 2.5, 1000, TIMEOUT_MAX]) {
      qt.setTimeout.MAX_TIMEOUT = v;
      t.strictEqual(qt.setTimeout.MAX_TIMEOUT, v, `MAX_TIMEOUT ${v}`);
    }
    for (const v of [true, false, true]) {
      qt.setTimeout.exactStart = v;
      t.strictEqual(qt.setTimeout.exactStart, v, `exactStart ${v}`);
    }
    for (const v of [true, false]) {
      qt.setTimeout.coarse = v;
      t.strictEqual(qt.setTimeout.coarse, v, `coarse ${v}`);
    }
    for (const v of [1, 1.5, 100, 30000, TIMEOUT_MAX]) {
      qt.setTimeout.coarseFrom = v;
      t.strictEqual(qt.setTimeout.coarseFrom, v, `coarseFrom ${v}`);
    }
    t.done();
  },

  'the knobs are enumerable accessors that cannot be redefined, as before': function(t) {
    for (const name of Object.keys(KNOBS)) {
      const [owner, property] = KNOBS[name];
      const desc = Object.getOwnPropertyDescriptor(owner, property);
      t.ok(desc.enumerable && !desc.configurable && typeof desc.get === 'function' && typeof desc.set === 'function', name);
    }
    t.done();
  },

  'a value that is not a number is refused as Node refuses it: ERR_INVALID_ARG_TYPE, no coercion': function(t) {
    for (const name of ['setImmediate.maxTickDepth', 'setImmediate.maxTurnMs', 'setTimeout.MIN_TIMEOUT', 'setTimeout.MAX_TIMEOUT', 'setTimeout.coarseFrom']) {
      for (const value of NOT_NUMBERS) refusesType(t, name, 'number', value);
    }
    t.done();
  },

  'exactStart takes only booleans: ERR_INVALID_ARG_TYPE for anything else': function(t) {
    for (const value of NOT_BOOLEANS) refusesType(t, 'setTimeout.exactStart', 'boolean', value);
    qt.setTimeout.exactStart = true;
    t.ok(assignmentError('setTimeout.exactStart', 'false') !== null);
    t.strictEqual(qt.setTimeout.exactStart, true, "'false' did not become anything");
    t.done();
  },

  'coarse is off by default and takes only booleans; coarseFrom is 1000 and takes numbers from 1 to 2^31-1': function(t) {
    t.strictEqual(qt.setTimeout.coarse, false);
    t.strictEqual(qt.setTimeout.coarseFrom, 1000);
    for (const value of NOT_BOOLEANS) refusesType(t, 'setTimeout.coarse', 'boolean', value);
    for (const value of [0, 0.5, -1, NaN, -Infinity, Infinity, TIMEOUT_MAX + 1, 2 ** 40]) {
      refusesRange(t, 'setTimeout.coarseFrom', `>= 1 && <= ${TIMEOUT_MAX}`, value);
    }
    t.done();
  },

  'maxTickDepth takes any safe integer: others are ERR_OUT_OF_RANGE': function(t) {
    const safe = `>= ${Number.MIN_SAFE_INTEGER} && <= ${Number.MAX_SAFE_INTEGER}`;
    for (const value of [1.5, -0.5, NaN, Infinity, -Infinity, 1e-9]) refusesRange(t, 'setImmediate.maxTickDepth', 'an integer', value);
    for (const value of [2 ** 53, -(2 ** 53), 2 ** 60, 1e21]) refusesRange(t, 'setImmediate.maxTickDepth', safe, value);
    t.done();
  },

  'maxTurnMs takes any number >= 0, Infinity included: others are ERR_OUT_OF_RANGE': function(t) {
    for (const value of [-1, -0.5, -Infinity, NaN, -Number.MAX_VALUE, -(2 ** 40)]) refusesRange(t, 'setImmediate.maxTurnMs', '>= 0', value);
    t.done();
  },

  'MIN_TIMEOUT takes numbers from 0 to MAX_TIMEOUT, MAX_TIMEOUT from MIN_TIMEOUT to 2^31-1': function(t) {
    for (const value of [-1, -0.5, NaN, -Infinity, Infinity, TIMEOUT_MAX + 1, 2 ** 40]) {
      refusesRange(t, 'setTimeout.MIN_TIMEOUT', `>= 0 && <= ${TIMEOUT_MAX}`, value);
    }
    for (const value of [0, 0.5, NaN, Infinity, 2 ** 31, 2 ** 40, -1]) {
      refusesRange(t, 'setTimeout.MAX_TIMEOUT', `>= 1 && <= ${TIMEOUT_MAX}`, value);
    }
    // each bounds the other
    qt.setTimeout.MAX_TIMEOUT = 1000;
    refusesRange(t, 'setTimeout.MIN_TIMEOUT', '>= 0 && <= 1000', 1001);
    qt.setTimeout.MIN_TIMEOUT = 10;
    refusesRange(t, 'setTimeout.MAX_TIMEOUT', `>= 10 && <= ${TIMEOUT_MAX}`, 9);
    t.done();
  },

  'a delay above MAX_TIMEOUT becomes MIN_TIMEOUT, with a TimeoutOverflowWarning every time': function(t) {
    // native: 2^31 overflows to 1 ms with Node's warning; qtimers: the same, and so does any delay
    // above a lowered MAX_TIMEOUT, with the warning saying which limit it passed
    const program = (mode) => `
      const nativeSetTimeout = ${mode === 'native' ? 'setTimeout' : 'require(ROOT + "/lib/natives").setTimeout'};
      const warnings = [];
      process.on('warning', (w) => warnings.push({ name: w.name, message: w.message }));
      const fired = [];
      ${mode === 'lowered' ? 'setTimeout.MAX_TIMEOUT = 1000;' : ''}
      const delay = ${mode === 'lowered' ? 5000 : 2 ** 31};
      const a = setTimeout(() => fired.push('a'), delay);
      setTimeout(() => fired.push('b'), delay);
      // the overflowed timers fire after about 1 ms: long before this native 1 s one
      nativeSetTimeout(() => console.log(JSON.stringify({ warnings, fired, idle: a._idleTimeout })), 1000);
    `;
    const native = runJson(program('native'), { qtimers: false });
    const ours = runJson(program('ours'));
    const lowered = runJson(program('lowered'));
    for (const res of [native, ours, lowered]) t.equal(res.status, 0, res.stderr);
    const overflow = { name: 'TimeoutOverflowWarning', message: `${2 ** 31} does not fit into a 32-bit signed integer.\nTimeout duration was set to 1.` };
    t.deepEqual(native.json, { warnings: [overflow, overflow], fired: ['a', 'b'], idle: 1 }, 'native');
    t.deepEqual(ours.json, native.json, 'qtimers: as native');
    const lowerWarning = { name: 'TimeoutOverflowWarning', message: '5000 is more than setTimeout.MAX_TIMEOUT (1000).\nTimeout duration was set to 1.' };
    t.deepEqual(lowered.json, { warnings: [lowerWarning, lowerWarning], fired: ['a', 'b'], idle: 1 }, 'MAX_TIMEOUT 1000');
    t.done();
  },
};
