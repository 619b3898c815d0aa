/*
 * own-frames: which frames of a stack trace are qtimers' own code, so that an origin
 * (lib/stats.js) names the program's line, also when a bundler has put qtimers and the program
 * into one file.
 *
 * Owns the positions qtimers' code occupies.  Each lib file whose functions run between a
 * program's call and the making of a handle (or between a drain and a callback) calls begin()
 * at its top and end() at its bottom: the two positions, as stack traces show them while
 * qtimers loads, bound that file's code wherever it ended up (its own file, or lines of a
 * bundle; a minified bundle's one line by column).  isOwn(frame) tells a formatted frame
 * ("    at fn (file:line:col)") that lies in one of those ranges, or (unbundled) in qtimers'
 * lib directory.  It imports nothing.
 * It must never throw at load (no stack to read leaves no range: frames are then kept), and
 * never keep anything but the ranges.
 */
'use strict';

const ranges = [];          // { file, fromLine, fromColumn, toLine, toColumn }
const LOCATION = /:(\d+):(\d+)\)?$/;

// qtimers' lib directory when this file is its own (not bundled): a path, or null
const LIB_FILE = /[\\/]lib[\\/]own-frames\.js$/;
const libDir = typeof __filename === 'string' && LIB_FILE.test(__filename) ? __filename.slice(0, -'own-frames.js'.length) : null;

/* { file, line, column } of a formatted frame, or null: the file after "at name (" or after "at " */
function locationOf(frame) {
  const text = frame.trim();
  const match = LOCATION.exec(text);
  if (match === null || !text.startsWith('at ')) return null;
  const head = text.slice(3, match.index);
  const open = text.endsWith(')') ? head.indexOf(' (') : -1;
  return { file: open >= 0 ? head.slice(open + 2) : head, line: Number(match[1]), column: Number(match[2]) };
}

/* where the caller of `fn` is, as the first frame of a stack trace shows it, or null */
function callerOf(fn) {
  const holder = {};
  const limit = Error.stackTraceLimit;
  let text = '';
  try {
    Error.stackTraceLimit = 1;
    Error.captureStackTrace(holder, fn);
    text = String(holder.stack);     // a program's Error.prepareStackTrace may run here
  } catch (err) {
    text = '';
  }
  try {
    Error.stackTraceLimit = limit;
  } catch (err) {
    // not writable: it was never changed
  }
  const frame = text.split('\n').find((line) => /^\s+at /.test(line));
  return frame === undefined ? null : locationOf(frame);
}

/* at the top of a lib file: where its code starts */
function begin() {
  return callerOf(begin);
}

/* at the bottom of a lib file, given begin()'s answer: the file's code is qtimers' own */
function end(from) {
  const to = callerOf(end);
  if (from === null || to === null || from.file !== to.file) return;
  ranges.push({ file: from.file, fromLine: from.line, fromColumn: from.column, toLine: to.line, toColumn: to.column });
}

function inRange(range, line, column) {
  if (line < range.fromLine || line > range.toLine) return false;
  if (line === range.fromLine && column < range.fromColumn) return false;
  return line !== range.toLine || column <= range.toColumn;
}

/* whether a formatted frame is in qtimers' own code */
function isOwn(frame) {
  if (libDir !== null && frame.indexOf(libDir) >= 0) return true;
  const at = locationOf(frame);
  if (at === null) return false;
  for (const range of ranges) {
    if (range.file === at.file && inRange(range, at.line, at.column)) return true;
  }
  return false;
}

module.exports = { begin, end, isOwn };
