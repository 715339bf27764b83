// The page's test hook (docs/viewer.md, "Test hook"): window.cutraceStats and the hidden
// <pre id="cutrace-stats"> (its JSON), both updated after every paint; every script error lands in
// stats.errors. Also `$`, the element by id, and RUN, the run overview on a run's page.
/* exported T0, $, stats, COUNTERS, publish, RUN */
const T0 = performance.now();
const $ = id => document.getElementById(id);
const statsEl = $('cutrace-stats');
const stats = window.cutraceStats = {view: null, cta: null, slicesDrawn: 0, slicesVisible: 0,
  instantsDrawn: 0, instantsVisible: 0, flowsDrawn: 0, ctasDrawn: 0, tracks: 0, paints: 0,
  gridBands: null, gridRowsDrawn: 0, gridBandsDrawn: 0, expanded: [],
  firstPaintMs: null, firstDrawnMs: null, scriptMs: T0, paintMs: null, loadMs: null, ctaSlices: null, ctaInstants: null,
  totalSlices: 0, totalInstants: 0, errors: [],
  filter: null, filterHide: false, filterError: null, matchSlices: null, matchInstants: null,
  matchesDrawn: 0, matchesVisible: 0, selection: null, pickError: null};
// Zeroed before every paint; the run overview adds its own.
const COUNTERS = ['slicesDrawn', 'slicesVisible', 'instantsDrawn', 'instantsVisible', 'flowsDrawn',
                  'ctasDrawn', 'tracks', 'gridRowsDrawn', 'gridBandsDrawn', 'matchesDrawn',
                  'matchesVisible'];
function publish() { statsEl.textContent = JSON.stringify(stats); }
window.addEventListener('error', e => { stats.errors.push(String(e.message)); publish(); });
let RUN = null; // the run overview when this page shows a whole run (export_run_html)
