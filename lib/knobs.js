/*
 * knobs: the properties that tune qtimers (setImmediate.maxTickDepth, setTimeout.MIN_TIMEOUT,
 * MAX_TIMEOUT, exactStart, ...), defined with the argument validation Node gives its own options.
 *
 * Owns defining a knob and checking what a program assigns to it, the way Node's validators check
 * an argument: a value of the wrong type is a TypeError ERR_INVALID_ARG_TYPE, a number outside
 * the knob's range (or not an integer where one is needed) a RangeError ERR_OUT_OF_RANGE, each
 * with Node's wording, the knob named as the property it is ("setImmediate.maxTickDepth").
 * The error objects are Node's own, made by a Node validator handed the same value, so their
 * class, prototype, `code`, toString and the description of the value ("Received type string
 * ('0')") are those of the running version; only the name in the message is the knob's, and the
 * stack starts at the assignment.  Strings are never coerced: '0' is not a number.
 * The options of the API's functions are checked here too (checkOptions, booleanOption): Node's
 * validateObject and validateBoolean, and an unknown option name refused as ERR_INVALID_ARG_VALUE.
 * It must never accept a value the knob's type or range excludes, and never change a setting
 * when it throws.
 */
'use strict';

const util = require('./builtins').util;

// Node's validators, reached through public functions that reject the value before doing
// anything else.  Captured once, so a program that replaces Buffer's methods changes nothing.
const bufferAlloc = Buffer.alloc;             // a non-number size: ERR_INVALID_ARG_TYPE
const bufferByteLength = Buffer.byteLength;   // a number where a string is due: the same
const readUInt8 = Buffer.prototype.readUInt8;
const oneByte = Buffer.alloc(1);              // a fractional offset: ERR_OUT_OF_RANGE

const BlobClass = typeof Blob === 'function' ? Blob : null;   // refuses an unknown `endings`

const RECEIVED = '. Received ';
const MAX_INSPECTED = 128;      // Node cuts a value's description in ERR_INVALID_ARG_VALUE here

/*
 * Node's TypeError ERR_INVALID_ARG_TYPE for `value`, with its message for property `name`
 * expected to be of type `type` ('number' or 'boolean'); the value's description is Node's.
 */
function invalidArgType(name, type, value) {
  let err = null;
  try {
    if (typeof value === 'number') bufferByteLength(value);
    else bufferAlloc(value);
  } catch (nodeError) {
    err = nodeError;
  }
  let received;
  const at = err !== null && typeof err.message === 'string' ? err.message.indexOf(RECEIVED) : -1;
  if (at >= 0) {
    received = err.message.slice(at + RECEIVED.length);
  } else {
    // not reached on Node 18-26; a plain error with Node's code, should a validator change
    received = `type ${typeof value} (${util.inspect(value)})`;
    err = new TypeError();
    err.code = 'ERR_INVALID_ARG_TYPE';
  }
  err.message = `The "${name}" property must be of type ${type}${RECEIVED}${received}`;
  return err;
}

/*
 * Node's TypeError ERR_INVALID_ARG_VALUE: `The property 'name' reason. Received value` (an
 * argument if the name has no dot), the value described by util.inspect and cut as Node cuts it.
 * The error object is one Node made for a fixed value.
 */
function invalidArgValue(name, value, reason) {
  let err = null;
  try {
    if (BlobClass !== null) new BlobClass([], { endings: 'qtimers' });
  } catch (nodeError) {
    err = nodeError;
  }
  if (err === null || err.code !== 'ERR_INVALID_ARG_VALUE') {
    err = new TypeError();      // not reached on Node 18-26, as above
    err.code = 'ERR_INVALID_ARG_VALUE';
  }
  let inspected = util.inspect(value);
  if (inspected.length > MAX_INSPECTED) inspected = `${inspected.slice(0, MAX_INSPECTED)}...`;
  err.message = `The ${name.includes('.') ? 'property' : 'argument'} '${name}' ${reason}${RECEIVED}${inspected}`;
  return err;
}

/* Node's ERR_INVALID_ARG_TYPE for argument or property `name`, its stack from `caller`'s call on */
function argumentError(name, type, value, caller) {
  const err = invalidArgType(name, type, value);
  if (name.indexOf('.') < 0) err.message = err.message.replace('" property', '" argument');
  Error.captureStackTrace(err, caller);
  return err;
}

/*
 * An options argument as Node's validateObject takes it (undefined, or an object that is not null,
 * an array or a function), with no own enumerable name outside `names`: a misspelt option is
 * refused (ERR_INVALID_ARG_VALUE) rather than ignored.  `fnName` names the function in the error.
 */
function checkOptions(options, names, fnName, caller) {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw argumentError('options', 'object', options, caller);
  }
  for (const key of Object.keys(options)) {
    if (names.includes(key)) continue;
    const err = invalidArgValue(`options.${key}`, options[key], `is not an option of ${fnName}`);
    Error.captureStackTrace(err, caller);
    throw err;
  }
}

/* options.<name> (options checked by checkOptions): a boolean, or `absent` if undefined */
function booleanOption(options, name, absent, caller) {
  const value = options === undefined ? undefined : options[name];
  if (value === undefined) return absent;
  if (typeof value !== 'boolean') throw argumentError(`options.${name}`, 'boolean', value, caller);
  return value;
}

/* Node's RangeError ERR_OUT_OF_RANGE: `The value of "name" is out of range. It must be range. Received value` */
function outOfRange(name, range, value) {
  let err = null;
  try {
    readUInt8.call(oneByte, 0.5);
  } catch (nodeError) {
    err = nodeError;
  }
  if (err === null || err.code !== 'ERR_OUT_OF_RANGE') {
    err = new RangeError();   // not reached on Node 18-26, as above
    err.code = 'ERR_OUT_OF_RANGE';
  }
  err.message = `The value of "${name}" is out of range. It must be ${range}${RECEIVED}${receivedNumber(value)}`;
  return err;
}

/* a number as Node's ERR_OUT_OF_RANGE shows it: large integers with digit separators, 1_099_511_627_776 */
function receivedNumber(value) {
  if (Number.isInteger(value) && Math.abs(value) > 2 ** 32) return withSeparators(String(value));
  return util.inspect(value);
}

function withSeparators(digits) {
  let grouped = '';
  let i = digits.length;
  const start = digits[0] === '-' ? 1 : 0;
  for (; i >= start + 4; i -= 3) grouped = `_${digits.slice(i - 3, i)}${grouped}`;
  return `${digits.slice(0, i)}${grouped}`;
}

/* the bound, a number or a function that reads the current one (MIN_TIMEOUT <= MAX_TIMEOUT) */
function boundOf(bound) {
  return typeof bound === 'function' ? bound() : bound;
}

/*
 * Node's validateNumber: a number (NaN counts as out of range when a bound is given), within
 * [min, max] where given.  Returns the error to throw, or null.
 */
function numberError(name, value, min, max) {
  if (typeof value !== 'number') return invalidArgType(name, 'number', value);
  const hasMin = min !== undefined;
  const hasMax = max !== undefined;
  if ((hasMin && value < min) || (hasMax && value > max) || ((hasMin || hasMax) && value !== value)) {
    const range = `${hasMin ? `>= ${min}` : ''}${hasMin && hasMax ? ' && ' : ''}${hasMax ? `<= ${max}` : ''}`;
    return outOfRange(name, range, value);
  }
  return null;
}

/* Node's validateInteger: a number, an integer, within [min, max] (the safe integers by default) */
function integerError(name, value, min, max) {
  if (typeof value !== 'number') return invalidArgType(name, 'number', value);
  if (!Number.isInteger(value)) return outOfRange(name, 'an integer', value);
  const low = min === undefined ? Number.MIN_SAFE_INTEGER : min;
  const high = max === undefined ? Number.MAX_SAFE_INTEGER : max;
  if (value < low || value > high) return outOfRange(name, `>= ${low} && <= ${high}`, value);
  return null;
}

/* Node's validateBoolean */
function booleanError(name, value) {
  return typeof value === 'boolean' ? null : invalidArgType(name, 'boolean', value);
}

/*
 * Defines knob `property` on function `owner` (named in errors as "owner.property"): an
 * enumerable accessor whose setter hands `set` only values of `spec.type`:
 *   'number'   Node's validateNumber, within spec.min / spec.max where given (NaN then refused)
 *   'integer'  Node's validateInteger, within spec.min / spec.max, the safe integers by default
 *   'boolean'  Node's validateBoolean
 * A bound may be a function, read at each assignment, for a range that depends on another knob.
 */
function define(owner, property, spec) {
  const name = `${owner.name}.${property}`;
  const type = spec.type;
  if (type !== 'number' && type !== 'integer' && type !== 'boolean') throw new Error(`knob ${name}: unknown type ${type}`);
  const store = spec.set;
  Object.defineProperty(owner, property, {
    enumerable: true,
    configurable: false,
    get: spec.get,
    set: function setKnob(value) {
      const err = type === 'boolean' ? booleanError(name, value)
        : type === 'integer' ? integerError(name, value, boundOf(spec.min), boundOf(spec.max))
          : numberError(name, value, boundOf(spec.min), boundOf(spec.max));
      if (err !== null) {
        Error.captureStackTrace(err, setKnob);   // from the assignment on, as Node's start at the call
        throw err;
      }
      store(value);
    },
  });
}

module.exports = { define, argumentError, checkOptions, booleanOption };
