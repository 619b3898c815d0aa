/*
 * first-line: the main module of a scenario's child run with `--load require`, whose first line
 * requires qtimers, as an app that starts with `require('qtimers')` does (instead of `node -r`).
 *   node first-line.js QTIMERS_ENTRY scenarios/FAMILY.js NAME [--quick] [--als] [--depth N]
 * It must never run anything before that require: the position is what is measured.
 */
'use strict';
require(process.argv[2]);

const scenarioFile = process.argv[3];
process.argv.splice(1, 2);      // the scenario's arguments, as if it were the script
require('./harness').main(require(scenarioFile));
