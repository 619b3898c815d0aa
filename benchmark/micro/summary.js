/*
 * micro/summary: the README's "what each position costs" table, read from the six committed
 * `npm run bench` tables (Node 20, 24 and 26, preloaded and required on the main module's first
 * line).  `node benchmark/micro/summary.js` prints it; test/bench/test-readme-figures.js checks
 * that the README carries exactly this table, so a README figure is always one a committed
 * results file holds.
 * It must never measure anything or write a file, and never round a figure differently from
 * the table it comes from (a speedup is copied as printed; bytes are whole).
 */
'use strict';

const fs = require('fs');
const path = require('path');

const RESULTS_DIR = path.join(__dirname, '..', 'results');

// the rows, in the README's order: Node, how it is loaded, and the results file
const POSITIONS = [
  { node: 20, loaded: '`-r qtimers`', file: 'table.md' },
  { node: 20, loaded: 'first line', file: 'table-require.md' },
  { node: 24, loaded: '`-r qtimers`', file: 'table-node24.md' },
  { node: 24, loaded: 'first line', file: 'table-require-node24.md' },
  { node: 26, loaded: '`-r qtimers`', file: 'table-node26.md' },
  { node: 26, loaded: 'first line', file: 'table-require-node26.md' },
];

// the columns after the heap's: the README's heading, and the scenario's label in the tables
const SPEEDUPS = [
  { heading: 'set+clear `setTimeout`', label: 'set+clear setTimeout, 0 args' },
  { heading: 'create+run 10k `setTimeout`', label: 'create+run 10k setTimeout, 0 args' },
  { heading: 'create+run 10k `setImmediate`', label: 'create+run 10k setImmediate, 0 args' },
  { heading: 'recursive `setImmediate`', label: 'self-recursive setImmediate, 0 args' },
  { heading: '1000 1 ms intervals', label: '1000 concurrent setInterval(fn, 1)' },
];
const HEAP = 'heap per pending setTimeout, 1M pending';
// the --als tables (every scenario run with an AsyncLocalStorage store entered), preloaded
const IN_STORE = [
  { node: 20, file: 'table-als.md' },
  { node: 22, file: 'table-als-node22.md' },
  { node: 24, file: 'table-als-node24.md' },
  { node: 26, file: 'table-als-node26.md' },
];

/* a results table's header facts and its rows by scenario label: { native, qtimers, speedup } */
function readTable(file) {
  const text = fs.readFileSync(file, 'utf8');
  const header = /node (v\d+\.\d+\.\d+) .*?, (\d+) rounds?, .*?(\d{4}-\d\d-\d\d)/.exec(text.split('\n')[0]);
  if (!header) throw new Error(file + ': no header line with the Node version, rounds and date');
  const rows = new Map();
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // | group | scenario | unit | native | qtimers | speedup |  (a lower-is-better scenario ends in ` \*`)
    if (cells.length !== 8 || !/^\d+\.\d\dx/.test(cells[6])) continue;
    rows.set(cells[2].replace(/ \\\*$/, ''), { native: cells[4], qtimers: cells[5], speedup: /^\d+\.\d\dx/.exec(cells[6])[0] });
  }
  return { version: header[1], rounds: Number(header[2]), date: header[3], rows };
}

function row(table, label, file) {
  const found = table.rows.get(label);
  if (!found) throw new Error(file + ': no row "' + label + '"');
  return found;
}

/* one results file of Node `node`: its table, heap row, how many rows are below 1.0x, where it came from */
function readPosition(dir, node, file) {
  const table = readTable(path.join(dir, file));
  if (Number(/^v(\d+)/.exec(table.version)[1]) !== node) throw new Error(file + ': Node ' + table.version + ', not ' + node);
  return {
    table,
    heap: row(table, HEAP, file),
    below: [...table.rows.values()].filter((r) => parseFloat(r.speedup) < 1).length,
    source: { file, version: table.version, rounds: table.rounds, date: table.date },
  };
}

const bytes = (cell) => Math.round(parseFloat(cell));

/* the markdown lines of the README's table, and what they were read from */
function summary(dir = RESULTS_DIR) {
  const lines = [
    '| Node | loaded | heap per pending timeout (native) | ' + SPEEDUPS.map((s) => s.heading).join(' | ') + ' | rows below 1.0x |',
    '| --- | --- | --: | ' + SPEEDUPS.map(() => '--:').join(' | ') + ' | --: |',
  ];
  const sources = [];
  for (const { node, loaded, file } of POSITIONS) {
    const { table, heap, below, source } = readPosition(dir, node, file);
    lines.push(`| ${node} | ${loaded} | ${bytes(heap.qtimers)} B (${bytes(heap.native)} B) | ` +
      SPEEDUPS.map((s) => row(table, s.label, file).speedup).join(' | ') + ` | ${below} of ${table.rows.size} |`);
    sources.push(source);
  }
  return { lines, sources };
}

/* the README's sentence on timers made in a store: heap per pending timeout and rows below 1.0x per Node */
function storeSummary(dir = RESULTS_DIR) {
  const parts = [];
  const sources = [];
  for (const { node, file } of IN_STORE) {
    const { table, heap, below, source } = readPosition(dir, node, file);
    parts.push(`Node ${node} ${bytes(heap.qtimers)} B (native ${bytes(heap.native)}), ${below} of ${table.rows.size} rows below 1.0x`);
    sources.push(source);
  }
  return { sentence: 'With a store entered (`npm run bench -- --als`): ' + parts.join('; ') + '.', sources };
}

module.exports = { summary, storeSummary, readTable };

if (require.main === module) {
  const { lines, sources } = summary();
  console.log(lines.join('\n'));
  const store = storeSummary();
  console.log('\n' + store.sentence);
  for (const s of sources.concat(store.sources)) console.log(`  (${s.file}: node ${s.version}, ${s.rounds} rounds, ${s.date})`);
}
