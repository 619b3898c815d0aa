/*
 * chart: the SVG bar charts of the benchmark results (no dependencies), and the number formats
 * their tables share.
 *
 * Owns drawing and formatting only.  A chart is groups of rows under their titles: per row a
 * grey native bar above a blue qtimers bar, both scaled to the larger of the two (units differ
 * from row to row, so rows are not comparable to each other), the values at the bar ends, and
 * at the right the qtimers advantage, green at or above 1.  render() draws `npm run bench`'s
 * scenarios (benchmark/results/chart.svg), renderApps() `npm run bench:apps`' workloads, each
 * headed by the share of native CPU that Node's timers took in it (apps.svg).
 * It must never compute a figure: rows arrive with their medians and ratios.
 */
'use strict';

const BAR_HEIGHT = 10;
const ROW_HEIGHT = 2 * BAR_HEIGHT + 10;
const HEADER_HEIGHT = 84;
const COLORS = { native: '#9e9e9e', qtimers: '#1f6fd1', better: '#1b8a3a', worse: '#c62828', text: '#222', note: '#555' };

// the two charts' geometry and wording
const MICRO = {
  width: 1040, labelWidth: 450, barWidth: 380, groupHeight: 24, titleRaise: 6,
  legend: 'speedup (> 1: qtimers better)',
  footer: 'Bars are scaled per row (units differ); speedup is the median over rounds of ' +
    'qtimers/native, or native/qtimers where lower is better.',
  format: formatValue,
};
const APPS = {
  width: 1000, labelWidth: 330, barWidth: 420, groupHeight: 26, titleRaise: 7,
  legend: 'qtimers advantage (> 1: qtimers better)',
  footer: 'Bars are scaled per row (units differ); the advantage is the median over rounds of ' +
    'qtimers/native, or native/qtimers where lower is better.',
  format: (value) => formatFigure(value),
};

/* a micro table's cell: 12345678 ops/s => "12.3M"; the unit is the column header, not repeated in every cell */
function formatValue(value, unit) {
  if (unit === 'CPU %') return value.toFixed(value < 10 ? 2 : 1) + '%';
  if (unit === 'bytes') return value.toFixed(1);
  if (value >= 1e9) return (value / 1e9).toFixed(2) + 'G';
  if (value >= 1e6) return (value / 1e6).toFixed(2) + 'M';
  if (value >= 1e3) return (value / 1e3).toFixed(1) + 'k';
  return value.toFixed(1);
}

/* a workload's figure: 1234567 => "1.23M"; small values keep a sensible number of digits */
function formatFigure(value) {
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

/* a median ratio and its range over rounds: "1.23x (1.10-1.30)", "n/a" without one */
function formatRatio(ratio, min, max) {
  if (ratio === undefined) return 'n/a';
  let text = ratio.toFixed(2) + 'x';
  if (max > min) text += ' (' + min.toFixed(2) + '-' + max.toFixed(2) + ')';
  return text;
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

function bar(x, y, value, scale, label, color) {
  if (value === undefined) return text(x + 4, y + BAR_HEIGHT - 1, 'n/a', 'font-size="10" fill="' + COLORS.worse + '"');
  const width = Math.max(1, value * scale);
  return rect(x, y, width, BAR_HEIGHT, color) + text(x + width + 4, y + BAR_HEIGHT - 1, label, 'font-size="10"');
}

/*
 * groups: [{ title, note?, rows: [{ label, unit, better, native, qtimers, ratio }] }], drawn
 * with a layout (MICRO, APPS) under titles { title, subtitle }
 */
function draw(groups, layout, titles) {
  const { width, labelWidth, barWidth } = layout;
  const barX = labelWidth + 10;
  const parts = [];
  let y = HEADER_HEIGHT;
  for (const group of groups) {
    y += layout.groupHeight;
    parts.push(text(10, y - layout.titleRaise, group.title, 'font-size="14" font-weight="bold"'));
    if (group.note !== undefined) {
      parts.push(text(width - 10, y - layout.titleRaise, group.note, 'font-size="11" text-anchor="end" fill="' + COLORS.note + '"'));
    }
    parts.push('<line x1="10" y1="' + (y - 2) + '" x2="' + (width - 10) + '" y2="' + (y - 2) + '" stroke="#ddd"/>');
    for (const row of group.rows) {
      const max = Math.max(row.native || 0, row.qtimers || 0);
      const scale = max > 0 ? barWidth / max : 0;
      const label = row.label + ' [' + row.unit + (row.better === 'lower' ? ', lower is better' : '') + ']';
      parts.push(text(labelWidth, y + BAR_HEIGHT + 4, label, 'font-size="11" text-anchor="end"'));
      for (const [mode, offset] of [['native', 2], ['qtimers', 2 + BAR_HEIGHT]]) {
        const value = row[mode];
        parts.push(bar(barX, y + offset, value, scale, value === undefined ? '' : layout.format(value, row.unit), COLORS[mode]));
      }
      const ratio = row.ratio === undefined ? 'n/a' : row.ratio.toFixed(2) + 'x';
      const color = row.ratio !== undefined && row.ratio >= 1 ? COLORS.better : COLORS.worse;
      parts.push(text(width - 10, y + BAR_HEIGHT + 4, ratio,
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
    text(width - 10, 66, layout.legend, 'font-size="12" text-anchor="end"'),
  ];
  const footer = text(10, height - 10, layout.footer, 'font-size="10" fill="' + COLORS.note + '"');
  return '<svg xmlns="http://www.w3.org/2000/svg" width="' + width + '" height="' + height +
    '" viewBox="0 0 ' + width + ' ' + height + '" font-family="Helvetica, Arial, sans-serif" fill="' + COLORS.text + '">\n' +
    '<rect width="100%" height="100%" fill="#fff"/>\n' +
    header.concat(parts, footer).join('\n') + '\n</svg>\n';
}

/* `npm run bench`'s rows: [{ scenario: { group, label, unit, better }, native, qtimers, speedup }], grouped by scenario group */
function render(rows, titles) {
  const groups = [];
  for (const row of rows) {
    const s = row.scenario;
    if (!groups.length || groups[groups.length - 1].title !== s.group) groups.push({ title: s.group, rows: [] });
    groups[groups.length - 1].rows.push({
      label: s.label, unit: s.unit, better: s.better, native: row.native, qtimers: row.qtimers, ratio: row.speedup,
    });
  }
  return draw(groups, MICRO, titles);
}

/* `npm run bench:apps`' workloads: [{ title, share, rows: [{ label, unit, better, native, qtimers, ratio }] }] */
function renderApps(workloads, titles) {
  return draw(workloads.map((workload) => ({
    title: workload.title, note: 'Node\'s timers: ' + formatShare(workload.share) + ' of native CPU', rows: workload.rows,
  })), APPS, titles);
}

module.exports = { render, renderApps, formatValue, formatFigure, formatShare, formatRatio };
