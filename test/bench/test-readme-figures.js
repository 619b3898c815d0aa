'use strict';
// The README's "what each position costs" table is the one benchmark/micro/summary.js reads from
// the six committed `npm run bench` tables, figure for figure, with their rounds and date, and
// benchmark/RESULTS.md carries the same table and a copy of results/table.md: a figure there is
// always one a results file holds, as are its floor tables (results/floor*.md, phases*.md).  After a new
// `npm run bench`, paste what `node benchmark/micro/summary.js` prints, and the new table.md;
// after `npm run bench:floor` or `node benchmark/floor/phases.js`, its new file.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { summary, storeSummary } = require('../../benchmark/micro/summary');

const ROOT = path.join(__dirname, '..', '..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const RESULTS = fs.readFileSync(path.join(ROOT, 'benchmark', 'RESULTS.md'), 'utf8');

/* a results file's table and heading lines, and those of them RESULTS.md does not hold */
function copiedLines(name) {
  const lines = fs.readFileSync(path.join(ROOT, 'benchmark', 'results', name), 'utf8').split('\n');
  const kept = lines.filter((line) => line.startsWith('|') || line.startsWith('**'));
  return { kept, missing: kept.filter((line) => !RESULTS.includes(line + '\n')) };
}

module.exports = {
  'the README carries the table summary.js reads from the committed results': function(t) {
    const { lines } = summary();
    t.ok(README.includes(lines.join('\n') + '\n'),
      'README.md differs from `node benchmark/micro/summary.js`:\n' + lines.join('\n'));
    t.ok(RESULTS.includes(lines.join('\n') + '\n'), 'benchmark/RESULTS.md too');
    t.done();
  },

  'benchmark/RESULTS.md\'s copy of results/table.md is that file\'s table, line for line': function(t) {
    const { kept, missing } = copiedLines('table.md');
    t.ok(kept.length > 30, kept.length + ' lines');
    t.deepEqual(missing, [], 'lines of results/table.md not in RESULTS.md');
    t.done();
  },

  'benchmark/RESULTS.md\'s floor and phases tables are results/floor*.md\'s and phases*.md\'s, line for line': function(t) {
    const dir = path.join(ROOT, 'benchmark', 'results');
    const files = fs.readdirSync(dir).filter((name) => /^(floor|phases)(-node\d+)?\.md$/.test(name));
    for (const kind of ['floor', 'phases']) {
      t.ok(files.includes(kind + '.md') && files.includes(kind + '-node24.md'), kind + ', Node 20 and 24: ' + files);
    }
    // a heading, the table's two header lines and its rows: nine rows a floor, six a phases table
    const least = { floor: 12, phases: 9 };
    for (const name of files) {
      const { kept, missing } = copiedLines(name);
      t.ok(kept.length >= least[name.replace(/(-node\d+)?\.md$/, '')], name + ': ' + kept.length + ' lines');
      t.deepEqual(missing, [], 'lines of results/' + name + ' not in RESULTS.md');
    }
    t.done();
  },

  'the README\'s sentence on timers made in a store is the one summary.js reads from the --als tables': function(t) {
    const { sentence } = storeSummary();
    t.ok(README.replace(/\s+/g, ' ').includes(sentence), 'README.md should say: ' + sentence);
    t.done();
  },

  'the README says the rounds and date of those results': function(t) {
    const { sources } = summary();
    const rounds = [...new Set(sources.map((s) => s.rounds))];
    const dates = [...new Set(sources.map((s) => s.date))].sort();
    t.equal(rounds.length, 1, 'one number of rounds for all six: ' + rounds);
    const when = dates.length === 1 ? dates[0] : dates[0] + ' to ' + dates[dates.length - 1];
    const said = rounds[0] + ' rounds each, ' + when;
    t.ok(README.replace(/\s+/g, ' ').includes(said), 'README.md should say "' + said + '"');
    t.done();
  },

  'summary.js reads each figure from its own file, and refuses a file without a row it needs': function(t) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qtimers-summary-'));
    try {
      const names = ['table.md', 'table-require.md', 'table-node24.md', 'table-require-node24.md', 'table-node26.md', 'table-require-node26.md'];
      const node = [20, 20, 24, 24, 26, 26];
      names.forEach((name, i) => {
        const r = (x) => `${i + 1}.${x}x`;
        fs.writeFileSync(path.join(dir, name), [
          `**qtimers vs native timers**: node v${node[i]}.1.2 x64, CPU (2 cores), 5 rounds, 2026-12-0${i + 1}`, '',
          '| group | scenario | unit | native | qtimers | speedup |', '|---|---|---|--:|--:|--:|',
          `| Basics | set+clear setTimeout, 0 args | ops/s | 1M | 2M | ${r('01')} (1.00-2.00) |`,
          `| Primitives | create+run 10k setTimeout, 0 args | calls/s | 1M | 1M | ${r('02')} (1.00-2.00) |`,
          `| Primitives | create+run 10k setImmediate, 0 args | calls/s | 1M | 1M | 0.9${i}x (0.80-1.00) |`,
          `| Primitives | self-recursive setImmediate, 0 args | calls/s | 1M | 1M | ${r('04')} (1.00-2.00) |`,
          `| Timeouts | 1000 concurrent setInterval(fn, 1) | calls/cpu-s | 1M | 1M | ${r('05')} (1.00-2.00) |`,
          `| Memory | heap per pending setTimeout, 1M pending \\* | bytes | 160.0 | 7${i}.6 | 2.22x (2.22-2.22) |`,
        ].join('\n') + '\n');
      });
      const { lines, sources } = summary(dir);
      t.equal(lines.length, 8);
      t.equal(lines[2], '| 20 | `-r qtimers` | 71 B (160 B) | 1.01x | 1.02x | 0.90x | 1.04x | 1.05x | 1 of 6 |');
      t.equal(lines[7], '| 26 | first line | 76 B (160 B) | 6.01x | 6.02x | 0.95x | 6.04x | 6.05x | 1 of 6 |');
      t.equal(sources[5].date, '2026-12-06');
      fs.writeFileSync(path.join(dir, 'table-node24.md'), fs.readFileSync(path.join(dir, 'table-node24.md'), 'utf8').replace(/\| Memory.*\n/, ''));
      t.throws(() => summary(dir), /table-node24\.md: no row "heap per pending setTimeout/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    t.done();
  },
};
