// The page's start: the launch (or, on a run's page, the run overview) from the data element, the
// view the URL asks for, and the first paint, synchronously, so a headless --dump-dom sees its
// stats.
/* global $, materialise, paint, publish, route, RUN, stats, T0, useLaunch */
try {
  if (RUN) {
    RUN.load();
  } else {
    useLaunch(materialise(JSON.parse($('cutrace-data').textContent)), '');
  }
  stats.loadMs = performance.now() - T0;
  route();
  paint(); // synchronously, so a headless --dump-dom sees the first paint's stats
} catch (err) {
  stats.errors.push(String(err && err.stack || err));
  publish();
  throw err;
}
