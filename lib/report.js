/*
 * report: qtimers' state as a table for people to read.
 *
 * Owns the text only: report() puts stats() and pending() (lib/stats.js) into a few summary
 * lines and a table of the pending handles grouped by kind and where they were made (when
 * origins are tracked; by kind and callback where they are not): one row per group with its
 * count, delays, next due time, how many are referenced and the callbacks' names, largest
 * groups first (ties: the one due soonest), at most MAX_ROWS rows.  10k timers made on two
 * lines of code are two rows.  report-preload.js prints it at exit
 * and on a signal the user names.
 * It must never change what it reports on (it never resets the counts) and never print anything
 * itself.
 */
'use strict';

const stats = require('./stats');

const MAX_ROWS = 50;        // groups listed
const MAX_DELAYS = 3;       // distinct delays a row lists; more are shown as their range

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

/*
 * pending() entries grouped by kind and origin, or by kind and callback where no origin was
 * recorded; largest first.  pending() lists them by due time, so a group's first entry is its
 * soonest and a stable sort keeps ties in that order.
 */
function groups(handles) {
  const byKey = new Map();
  for (const h of handles) {
    const key = h.origin === null ? `${h.kind}\ncallback ${h.callback}` : `${h.kind}\norigin ${h.origin}`;
    let group = byKey.get(key);
    if (group === undefined) {
      group = { kind: h.kind, origin: h.origin, callbacks: new Set(), count: 0, refed: 0, delays: new Set(), nextDue: h.msUntilDue };
      byKey.set(key, group);
    }
    group.count += 1;
    if (h.ref) group.refed += 1;
    group.delays.add(h.delay);
    group.callbacks.add(h.callback);
  }
  return [...byKey.values()].sort((a, b) => b.count - a.count);
}

/* a group's callbacks: the name, or the first and how many others */
function callbacks(set) {
  const first = set.values().next().value;
  return set.size === 1 ? first : `${first} and ${set.size - 1} other${set.size === 2 ? '' : 's'}`;
}

/* a group's delays: each of a few, or the range of many */
function delays(set) {
  const list = [...set].sort((a, b) => a - b);
  return list.length <= MAX_DELAYS ? list.join(', ') : `${list[0]}-${list[list.length - 1]}`;
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
    const header = ['count', 'kind', 'delay', 'next due', 'referenced', 'callback'];
    if (withOrigins) header.push('created at');
    const all = groups(handles);
    const rows = all.slice(0, MAX_ROWS).map((g) => {
      const row = [String(g.count), g.kind, delays(g.delays), String(g.nextDue), String(g.refed), callbacks(g.callbacks)];
      if (withOrigins) row.push(g.origin === null ? '' : g.origin);
      return row;
    });
    lines.push('');
    lines.push(...table(header, rows, [true, false, true, true, true, false, false]));
    if (all.length > MAX_ROWS) {
      const rest = all.slice(MAX_ROWS).reduce((n, g) => n + g.count, 0);
      lines.push(`... and ${plural(all.length - MAX_ROWS, 'more group')} (${rest} pending; qtimers.pending() lists them all)`);
    }
    if (!withOrigins) lines.push('(QTIMERS_ORIGINS=1 with -r qtimers/report, or qtimers.trackOrigins(true) at startup, adds where each was created)');
  }
  return lines.join('\n') + '\n';
}

module.exports = { report };
