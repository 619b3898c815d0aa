/*
 * apps/chart: the SVG bar chart of `npm run bench:apps` (no dependencies).
 *
 * Owns drawing only: one group per workload, headed by its title and the share of native CPU
 * that Node's timers took in it, then one row per figure: a grey native bar above a blue
 * qtimers bar, scaled to the larger of the two (units differ from row to row), the values at
 * the bar ends, and at the right the qtimers advantage, green at or above 1.
 * It must never compute a figure: rows arrive with their medians and ratios from run.js.
 */
'use strict';

const WIDTH = 1000;
const LABEL_WIDTH = 330;
const BAR_WIDTH = 420;
const BAR_HEIGHT = 10;
const ROW_HEIGHT = 2 * BAR_HEIGHT + 10;
const GROUP_HEIGHT = 26;
const HEADER_HEIGHT = 84;
const COLORS = { native: '#9e9e9e', qtimers: '#1f6fd1', better: '#1b8a3a', worse: '#c62828', text: '#222', note: '#555' };

/* 1234567 => "1.23M"; small values keep a sensible number of digits */
function formatValue(value) {
  if (value === undefined || !isFinite(value)) return 'n/a';
  if (value >= 1e9) return (value / 1e9).toFixed(2) + 'G';
  if (value >= 1e6) return (value / 1e6).toFixed(2) + 'M';
  if (value >= 1e4) return (value / 1e3).toFixed(1) + 'k';
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function formatShare(share) {
  return share === undefined ? 'n/a' : (100 * share).toFixed(share < 0.1 ? 1 : 0) + '%';
}

function escapeXml(str) {
  return String(str).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function text(x, y, content, attrs) {
  return '<text x="' + x + '" y="' + y + '"' + (attrs ? ' ' + attrs : '') + '>' + escapeXml(content) + '</text>';
}

function rect(x, y, width, height, fill) {
  return '<rect x="' + x + '" y="' + y + '" width="' + width.toFixed(1) + '" height="' + height + '" fill="' + fill + '"/>';
}

function bar(x, y, value, scale, color) {
  if (value === undefined) return text(x + 4, y + BAR_HEIGHT - 1, 'n/a', 'font-size="10" fill="' + COLORS.worse + '"');
  const width = Math.max(1, value * scale);
  return rect(x, y, width, BAR_HEIGHT, color) + text(x + width + 4, y + BAR_HEIGHT - 1, formatValue(value), 'font-size="10"');
}

/*
 * render(workloads, { title, subtitle })
 * workloads: [{ title, share, rows: [{ label, unit, better, native, qtimers, ratio }] }]
 */
function render(workloads, titles) {
  const barX = LABEL_WIDTH + 10;
  const parts = [];
  let y = HEADER_HEIGHT;
  for (const workload of workloads) {
    y += GROUP_HEIGHT;
    parts.push(text(10, y - 7, workload.title, 'font-size="14" font-weight="bold"'));
    parts.push(text(WIDTH - 10, y - 7, 'Node\'s timers: ' + formatShare(workload.share) + ' of native CPU',
      'font-size="11" text-anchor="end" fill="' + COLORS.note + '"'));
    parts.push('<line x1="10" y1="' + (y - 2) + '" x2="' + (WIDTH - 10) + '" y2="' + (y - 2) + '" stroke="#ddd"/>');
    for (const row of workload.rows) {
      const max = Math.max(row.native || 0, row.qtimers || 0);
      const scale = max > 0 ? BAR_WIDTH / max : 0;
      const label = row.label + ' [' + row.unit + (row.better === 'lower' ? ', lower is better' : '') + ']';
      parts.push(text(LABEL_WIDTH, y + BAR_HEIGHT + 4, label, 'font-size="11" text-anchor="end"'));
      parts.push(bar(barX, y + 2, row.native, scale, COLORS.native));
      parts.push(bar(barX, y + 2 + BAR_HEIGHT, row.qtimers, scale, COLORS.qtimers));
      const ratio = row.ratio === undefined ? 'n/a' : row.ratio.toFixed(2) + 'x';
      const color = row.ratio !== undefined && row.ratio >= 1 ? COLORS.better : COLORS.worse;
      parts.push(text(WIDTH - 10, y + BAR_HEIGHT + 4, ratio,
        'font-size="12" font-weight="bold" text-anchor="end" fill="' + color + '"'));
      y += ROW_HEIGHT;
    }
  }
  const height = y + 30;
  const header = [
    text(10, 24, titles.title, 'font-size="18" font-weight="bold"'),
    text(10, 44, titles.subtitle, 'font-size="12"'),
    rect(10, 56, 12, 12, COLORS.native), text(28, 66, 'native', 'font-size="12"'),
    rect(90, 56, 12, 12, COLORS.qtimers), text(108, 66, 'qtimers', 'font-size="12"'),
    text(WIDTH - 10, 66, 'qtimers advantage (> 1: qtimers better)', 'font-size="12" text-anchor="end"'),
  ];
  const footer = text(10, height - 10, 'Bars are scaled per row (units differ); the advantage is the median over rounds of ' +
    'qtimers/native, or native/qtimers where lower is better.', 'font-size="10" fill="' + COLORS.note + '"');
  return '<svg xmlns="http://www.w3.org/2000/svg" width="' + WIDTH + '" height="' + height +
    '" viewBox="0 0 ' + WIDTH + ' ' + height + '" font-family="Helvetica, Arial, sans-serif" fill="' + COLORS.text + '">\n' +
    '<rect width="100%" height="100%" fill="#fff"/>\n' +
    header.concat(parts, footer).join('\n') + '\n</svg>\n';
}

module.exports = { render, formatValue, formatShare };
