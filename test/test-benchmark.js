'use strict';
// The benchmark's scenario tables: what `npm run bench` hands each child process.  Timings are
// not tested here (no timed assertions); the options that decide what a row measures are.

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const scenariosDir = path.join(__dirname, '..', 'benchmark', 'scenarios');
const families = fs.readdirSync(scenariosDir).filter((f) => f.endsWith('.js'));

function rows() {
  const all = [];
  for (const file of families) {
    const table = require(path.join(scenariosDir, file));
    for (const name of Object.keys(table)) all.push({ id: file.replace(/\.js$/, '') + '/' + name, def: table[name] });
  }
  return all;
}

module.exports = {
  'node options of a row are a list of options, or absent': function(t) {
    for (const { id, def } of rows()) {
      if (!('nodeArgs' in def)) continue;
      t.ok(Array.isArray(def.nodeArgs) && def.nodeArgs.length > 0, id + ': nodeArgs ' + JSON.stringify(def.nodeArgs));
      for (const arg of def.nodeArgs || []) t.ok(/^--[a-z]/.test(arg), id + ': ' + arg);
    }
    t.done();
  },

  'fixed-window rows (Cpu, setInterval) run without the memory reducer, natively and with qtimers': function(t) {
    const windowed = rows().filter(({ id }) => /^cpu\/|^timeouts\/interval/.test(id));
    t.ok(windowed.length >= 6, windowed.map((r) => r.id).join(' '));
    for (const { id, def } of windowed) {
      t.ok(Array.isArray(def.nodeArgs) && def.nodeArgs.includes('--no-memory-reducer'), id + ': ' + JSON.stringify(def.nodeArgs));
    }
    t.done();
  },

  'run.js lists every scenario of every family': function(t) {
    const out = execFileSync(process.execPath, [path.join(__dirname, '..', 'benchmark', 'run.js'), '--list'], { encoding: 'utf8' });
    for (const { id } of rows()) t.ok(out.includes(id), id + ' in --list');
    t.done();
  },
};
