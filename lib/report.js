/*
 * report: qtimers' state as a table for people to read.
 *
 * Owns the text only: report() puts stats() and pending() (lib/stats.js) into a few summary
 * lines and one row per pending handle (the first MAX_ROWS of them, soonest due first), with
 * where each was made when origins are tracked.  report-preload.js prints it on a signal and at
 * exit.
 * It must never change what it reports on (it never resets the counts) and never print anything
 * itself.
 */
'use strict';

const stats = require('./stats');

const MAX_ROWS = 50;

function plural(n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function ms(value) {
  return `${Math.round(value * 100) / 100} ms`;
}

/* rows of cells as columns padded to their widest cell; numbers right-aligned */
function table(header, rows, numeric) {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells) => cells.map((cell, c) => {
    if (c === cells.length - 1) return cell;
    return numeric[c] ? cell.padStart(widths[c]) : cell.padEnd(widths[c]);
  }).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}

/* the report, as text ending in a newline */
function report() {
  const s = stats.timerStats();
  const handles = stats.pending();
  const imm = s.immediates;
  const tmo = s.timeouts;
  const late = s.lateness;
  const lines = [];
  lines.push(`qtimers report (pid ${process.pid}, Node ${process.version})`);
  lines.push(`pending: ${plural(imm.pending, 'immediate')} (${imm.refed} referenced), ` +
    `${plural(tmo.pending - tmo.intervals, 'timeout')} and ${plural(tmo.intervals, 'interval')} (${tmo.refed} referenced)`);
  if (tmo.delays > 0) {
    lines.push(`delays pending: ${tmo.delays}; largest lists: ` +
      tmo.largestLists.map((l) => `${l.delay} ms x ${l.pending}`).join(', '));
  }
  lines.push(`callbacks run: immediates ${imm.ran} in ${plural(imm.drains, 'turn')} (${imm.threw} threw), ` +
    `timeouts and intervals ${tmo.ran} in ${plural(tmo.drains, 'wakeup')} (${tmo.threw} threw)`);
  lines.push(late.count === 0 ? 'lateness: no timeout has fired' :
    `lateness of ${late.count} fired: mean ${ms(late.mean)}, p50 ${ms(late.p50)}, p99 ${ms(late.p99)}, max ${ms(late.max)}`);
  if (handles.length > 0) {
    const withOrigins = handles.some((h) => h.origin !== null);
    const header = ['kind', 'delay', 'due in', 'ref', 'callback'];
    if (withOrigins) header.push('created at');
    const rows = handles.slice(0, MAX_ROWS).map((h) => {
      const row = [h.kind, String(h.delay), String(h.msUntilDue), h.ref ? 'yes' : 'no', h.callback];
      if (withOrigins) row.push(h.origin === null ? '' : h.origin);
      return row;
    });
    lines.push('');
    lines.push(...table(header, rows, [false, true, true, false, false, false]));
    if (handles.length > MAX_ROWS) lines.push(`... and ${handles.length - MAX_ROWS} more (qtimers.pending() lists them all)`);
    if (!withOrigins) lines.push('(qtimers.trackOrigins(true) at startup adds where each was created)');
  }
  return lines.join('\n') + '\n';
}

module.exports = { report, MAX_ROWS };
