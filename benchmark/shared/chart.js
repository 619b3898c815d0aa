/**
 * Hand-written SVG bar chart of the benchmark results (no dependencies).
 *
 * One row per scenario, grouped under the scenario group names: a grey native bar above
 * a blue qtimers bar, both scaled to the larger of the two values in that row (units
 * differ from row to row, so rows are not comparable to each other), the values printed
 * at the bar ends, and the speedup at the right, green if qtimers is better.
 */

'use strict';

module.exports.render = render;
module.exports.formatValue = formatValue;

var WIDTH = 1040;
var LABEL_WIDTH = 450;              // scenario labels, right-aligned against the bars
var BAR_WIDTH = 380;                // the longer bar of a row
var BAR_HEIGHT = 10;
var ROW_HEIGHT = 2 * BAR_HEIGHT + 10;
var GROUP_HEIGHT = 24;
var HEADER_HEIGHT = 84;
var COLORS = { native: '#9e9e9e', qtimers: '#1f6fd1', better: '#1b8a3a', worse: '#c62828', text: '#222' };

// 12345678 ops/s => "12.3M"; the unit is the column header, not repeated in every cell
function formatValue( value, unit ) {
    if (unit === 'CPU %') return value.toFixed(value < 10 ? 2 : 1) + '%';
    if (unit === 'bytes') return value.toFixed(1);
    if (value >= 1e9) return (value / 1e9).toFixed(2) + 'G';
    if (value >= 1e6) return (value / 1e6).toFixed(2) + 'M';
    if (value >= 1e3) return (value / 1e3).toFixed(1) + 'k';
    return value.toFixed(1);
}

function escapeXml( str ) {
    return String(str).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function text( x, y, content, attrs ) {
    return '<text x="' + x + '" y="' + y + '"' + (attrs ? ' ' + attrs : '') + '>' + escapeXml(content) + '</text>';
}

function rect( x, y, width, height, fill ) {
    return '<rect x="' + x + '" y="' + y + '" width="' + width.toFixed(1) + '" height="' + height + '" fill="' + fill + '"/>';
}

function bar( x, y, value, scale, unit, color ) {
    if (value === undefined) return text(x + 4, y + BAR_HEIGHT - 1, 'n/a', 'font-size="10" fill="' + COLORS.worse + '"');
    var width = Math.max(1, value * scale);
    return rect(x, y, width, BAR_HEIGHT, color) +
        text(x + width + 4, y + BAR_HEIGHT - 1, formatValue(value, unit), 'font-size="10"');
}

function speedupText( row ) {
    if (row.speedup === undefined) return { content: 'n/a', color: COLORS.worse };
    return {
        content: row.speedup.toFixed(2) + 'x',
        color: row.speedup >= 1 ? COLORS.better : COLORS.worse,
    };
}

// rows: [{ scenario: { group, label, unit, better }, native, qtimers, speedup }]
function render( rows, titles ) {
    var barX = LABEL_WIDTH + 10;
    var parts = [];
    var y = HEADER_HEIGHT, group;

    rows.forEach(function(row) {
        var s = row.scenario;
        if (s.group !== group) {
            group = s.group;
            y += GROUP_HEIGHT;
            parts.push(text(10, y - 6, group, 'font-size="14" font-weight="bold"'));
            parts.push('<line x1="10" y1="' + (y - 2) + '" x2="' + (WIDTH - 10) + '" y2="' + (y - 2) + '" stroke="#ddd"/>');
        }
        var max = Math.max(row.native || 0, row.qtimers || 0);
        var scale = max > 0 ? BAR_WIDTH / max : 0;
        var speedup = speedupText(row);
        var unit = s.unit + (s.better === 'lower' ? ', lower is better' : '');
        parts.push(text(LABEL_WIDTH, y + BAR_HEIGHT + 4, s.label + ' [' + unit + ']', 'font-size="11" text-anchor="end"'));
        parts.push(bar(barX, y + 2, row.native, scale, s.unit, COLORS.native));
        parts.push(bar(barX, y + 2 + BAR_HEIGHT, row.qtimers, scale, s.unit, COLORS.qtimers));
        parts.push(text(WIDTH - 10, y + BAR_HEIGHT + 4, speedup.content,
            'font-size="12" font-weight="bold" text-anchor="end" fill="' + speedup.color + '"'));
        y += ROW_HEIGHT;
    });

    var height = y + 30;
    var header = [
        text(10, 24, titles.title, 'font-size="18" font-weight="bold"'),
        text(10, 44, titles.subtitle, 'font-size="12"'),
        rect(10, 56, 12, 12, COLORS.native), text(28, 66, 'native', 'font-size="12"'),
        rect(90, 56, 12, 12, COLORS.qtimers), text(108, 66, 'qtimers', 'font-size="12"'),
        text(WIDTH - 10, 66, 'speedup (> 1: qtimers better)', 'font-size="12" text-anchor="end"'),
    ];
    var footer = text(10, height - 10, 'Bars are scaled per row (units differ); speedup is the median over rounds of ' +
        'qtimers/native, or native/qtimers where lower is better.', 'font-size="10" fill="#555"');

    return '<svg xmlns="http://www.w3.org/2000/svg" width="' + WIDTH + '" height="' + height +
        '" viewBox="0 0 ' + WIDTH + ' ' + height + '" font-family="Helvetica, Arial, sans-serif" fill="' + COLORS.text + '">\n' +
        '<rect width="100%" height="100%" fill="#fff"/>\n' +
        header.concat(parts, footer).join('\n') + '\n</svg>\n';
}
