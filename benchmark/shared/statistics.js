/*
 * statistics: the arithmetic of the benchmark tables (micro/run.js, floor/run.js, apps/).
 *
 * Owns how rounds are summarized: the median of a list, the qtimers advantage of one round
 * (> 1 is better for qtimers whichever way the unit points), and each suite's rows of a run
 * (medians over rounds, the advantage's median and range).
 * It must never read the clock, the machine or the files: numbers in, numbers out.
 */
'use strict';

function median(values) {
  if (!values.length) return undefined;
  const sorted = values.slice().sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// the qtimers advantage in one round: > 1 is better for qtimers whichever way the unit points.
// CPU % rows compare CPU per callback (CPU % / callbacks per second): the same as the CPU %
// ratio while both modes keep up with their loops, and still a comparison of cost once one
// falls behind, where a CPU % that is lower only because fewer callbacks ran (or that is
// capped by a saturated core) would reward the slower implementation.
// `scenario`: a row of `npm run bench`, or a figure of a bench:apps workload ({ unit, better })
function advantage(scenario, nativeValue, qtimersValue, rates) {
  if (scenario.unit === 'CPU %' && rates && rates.native > 0 && rates.qtimers > 0) {
    return (nativeValue / rates.native) / (qtimersValue / rates.qtimers);
  }
  return scenario.better === 'lower' ? nativeValue / qtimersValue : qtimersValue / nativeValue;
}

/* the median of per-round ratios and their range ({} of undefined ones when there are none) */
function spread(ratios) {
  if (!ratios.length) return { median: undefined, min: undefined, max: undefined };
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

/* the rows of a `npm run bench` run: each scenario's medians over rounds, the advantage's median and range */
function summarize(results) {
  return results.map((result) => {
    const ratios = spread(result.ratios);
    return {
      scenario: result.scenario,
      native: median(result.native),
      qtimers: median(result.qtimers),
      speedup: ratios.median,
      speedupMin: ratios.min,
      speedupMax: ratios.max,
      seconds: median(result.seconds),
      callbackRate: { native: median(result.callbackRate.native), qtimers: median(result.callbackRate.qtimers) },
      errors: result.errors,
      warnings: result.warnings,
    };
  });
}

/*
 * the rows of a `npm run bench:apps` run (apps/runner.js's runAll): per workload, per figure the
 * medians over rounds and the advantage's median and range
 */
function summarizeWorkloads(results) {
  return results.map((result) => ({
    name: result.name,
    title: result.workload.title,
    describe: result.workload.describe,
    share: result.share,
    errors: result.errors,
    rows: result.workload.metrics.map((metric) => {
      const ratios = spread(result.ratios[metric.key] || []);
      return {
        label: metric.label, unit: metric.unit, better: metric.better,
        native: median(result.values.native.map((v) => v[metric.key])),
        qtimers: median(result.values.qtimers.map((v) => v[metric.key])),
        ratio: ratios.median, ratioMin: ratios.min, ratioMax: ratios.max,
      };
    }),
  }));
}

module.exports = { median, advantage, summarize, summarizeWorkloads };
