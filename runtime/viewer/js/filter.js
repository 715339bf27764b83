// The filter box on the page (filter_query.js is its language): the query from the box or the URL
// (&q=, &hide=1), matched once per query; drawing dims the slices it rejects, or hides them.
/* global $, D, I, matchEvents, parseQuery, repaint, S, setHashParam, stats, view */
/* exported FILTER, applyFilter, filterCounts, ctaFirstInstant */
const FILTER = {q: '', hide: false, M: null, IM: null};
function applyFilter() {
  const t0 = performance.now();
  FILTER.M = FILTER.IM = null;
  const parsed = parseQuery(FILTER.q);
  stats.filter = FILTER.q.trim() || null;
  stats.filterHide = FILTER.hide;
  stats.filterError = parsed.error || null;
  $('query').classList.toggle('bad', !!parsed.error);
  $('query').title = parsed.error || 'space-separated terms, all must hold (docs/viewer.md)';
  if (!parsed.error && parsed.terms.length)
    ({M: FILTER.M, IM: FILTER.IM} = matchEvents(parsed.terms, {D, S, I}));
  stats.filterMs = FILTER.M ? performance.now() - t0 : null; // matching every event, once
  filterCounts();
}
// The matches in the view's scope (its CTA, or the whole launch in the grid).
function filterCounts() {
  const M = FILTER.M, IM = FILTER.IM;
  if (!M || !view || (view.kind !== 'cta' && view.kind !== 'grid')) {
    stats.matchSlices = stats.matchInstants = null;
    $('qcount').textContent = '';
    return;
  }
  const c = view.kind === 'cta' ? view.c : null;
  const s0 = c ? c.s0 : 0, s1 = c ? c.s1 : S.n;
  const i0 = c ? ctaFirstInstant(c) : 0, i1 = c ? i0 + c.instants : I.n;
  let n = 0;
  for (let i = i0; i < i1; i++) n += IM[i];
  stats.matchSlices = M[s1] - M[s0];
  stats.matchInstants = n;
  $('qcount').textContent = `${stats.matchSlices} slices, ${n} instants match` +
                            (c ? ` in CTA ${c.cta}` : '');
}
const ctaFirstInstant = c => c.itracks.length ? c.itracks[0][2] : 0;
let queryTimer = 0;
$('query').addEventListener('input', e => {
  clearTimeout(queryTimer);
  queryTimer = setTimeout(() => {
    FILTER.q = e.target.value;
    setHashParam('q', FILTER.q.trim() ? encodeURIComponent(FILTER.q.trim()) : null);
    applyFilter();
    repaint();
  }, 150);
});
$('qhide').addEventListener('change', e => {
  FILTER.hide = e.target.checked;
  stats.filterHide = FILTER.hide;
  setHashParam('hide', FILTER.hide ? '1' : null);
  repaint();
});
