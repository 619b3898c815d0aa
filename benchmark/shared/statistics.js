/*
 * statistics: the arithmetic of the benchmark tables (micro/run.js, floor/run.js, apps/).
 *
 * Owns how rounds are summarized: the median of a list, and the qtimers advantage of one round
 * (> 1 is better for qtimers whichever way the unit points).
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
function advantage(scenario, nativeValue, qtimersValue, rates) {
  if (scenario.unit === 'CPU %' && rates && rates.native > 0 && rates.qtimers > 0) {
    return (nativeValue / rates.native) / (qtimersValue / rates.qtimers);
  }
  return scenario.better === 'lower' ? nativeValue / qtimersValue : qtimersValue / nativeValue;
}

/* the rows of a run: each scenario's medians over rounds, the advantage's median and range */
function summarize(results) {
  return results.map((result) => {
    const ratios = result.ratios;
    return {
      scenario: result.scenario,
      native: median(result.native),
      qtimers: median(result.qtimers),
      speedup: median(ratios),
      speedupMin: ratios.length ? Math.min.apply(null, ratios) : undefined,
      speedupMax: ratios.length ? Math.max.apply(null, ratios) : undefined,
      seconds: median(result.seconds),
      callbackRate: { native: median(result.callbackRate.native), qtimers: median(result.callbackRate.qtimers) },
      errors: result.errors,
      warnings: result.warnings,
    };
  });
}

module.exports = { median, advantage, summarize };
