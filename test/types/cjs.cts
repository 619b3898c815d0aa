// Type test, CommonJS side: compiled by `tsc -p test/types` (test/system/test-types.js), never run.
import qtimers = require('qtimers');
import standalone = require('qtimers/standalone');
import promises = require('qtimers/promises');
import { setTimeout, setImmediate } from 'qtimers';

const timeout: NodeJS.Timeout = setTimeout(() => {}, 1);
const immediate: NodeJS.Immediate = setImmediate(() => {});
qtimers.clearTimeout(timeout);
standalone.clearImmediate(immediate);
qtimers.setTimeout.MAX_TIMEOUT = standalone.setTimeout.MIN_TIMEOUT;
const api: typeof qtimers = standalone.install({ timersModule: true });
const later: Promise<boolean> = promises.setTimeout(1, true);
// @ts-expect-error the handle classes are not constructible
new qtimers.Immediate();

export = { api, later };
