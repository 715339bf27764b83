// Navigation: the URL hash says what is shown (#cta=N, #grid&expand=..., &q=, &hide=1, &x=A-B,
// &sel=B-E, #pick=...; docs/viewer.md), so every view is a link; show() puts a view on screen.
/* global $, applyFilter, clearSelection, CTAS, ctaView, D, el, expandedIn, FILTER, filterCounts,
          gridView, groupName, GUTTER:writable, pickCta, ranges, repaint, resize, RUN, scroller, select,
          stats, toggledHash, view:writable */
/* exported show, route, zoom, setHashParam */

// Grid view: a button per TRACE_GROUPS group with several rows per CTA, expanding or collapsing
// its rows (the same as a click in the gutter beside its band).
function bandButtons(v) {
  const bar = $('bands');
  bar.replaceChildren();
  if (v.kind !== 'grid') return;
  v.bands.groups.forEach((G, g) => {
    if (G.slices < 2) return;
    const b = el('button', `${groupName(g)} \u00d7${G.slices} ${G.open ? '\u25be' : '\u25b8'}`,
                 G.open ? 'on' : '');
    b.title = G.open ? 'collapse its slice rows into one band per CTA'
                     : 'show each of its slice rows in its own band';
    b.onclick = () => { location.hash = toggledHash(v.expanded, g); };
    bar.append(b);
  });
}

function show(v) {
  if (view) ranges.set(view.key, [view.x0, view.x1]);
  const same = view && view.key === v.key; // e.g. the grid with a group expanded: keep the scroll
  view = v;
  GUTTER = v.gutter || 170;
  const r = ranges.get(v.key);
  const pad = (v.hi - v.lo) * 0.01;
  [view.x0, view.x1] = r || [v.lo - pad, v.hi + pad];
  for (const b of $('tabs').children) b.classList.toggle('on', b.dataset.key === v.key);
  stats.view = v.kind;
  stats.cta = v.kind === 'cta' ? v.c.cta : null;
  stats.ctaSlices = v.kind === 'cta' ? v.c.slices : null;
  stats.ctaInstants = v.kind === 'cta' ? v.c.instants : null;
  stats.gridBands = v.kind === 'grid' ? v.bands.count : null;
  stats.expanded = v.kind === 'grid' ? [...v.expanded].sort((a, b) => a - b) : [];
  bandButtons(v);
  const launchView = v.kind === 'cta' || v.kind === 'grid'; // the filter works on launch slices
  if (v.kind === 'cta') { $('ctanum').value = v.c.cta; $('ctanum').classList.remove('bad'); }
  $('query').hidden = $('qhide').parentNode.hidden = $('qcount').hidden = !launchView;
  $('viewinfo').textContent = v.info;
  $('hint').textContent = 'wheel: zoom \u00b7 drag: pan \u00b7 shift+wheel: scroll rows \u00b7 ' +
    (launchView ? 'shift+drag: statistics of a time range \u00b7 ' : '') +
    (v.hint || 'grid: click a CTA to open it') + (RUN && v.kind !== 'run' ? ' \u00b7 Escape: the run' : '');
  if (!same) scroller.scrollTop = 0;
  resize();
}

function routeLaunch(hash) {
  const m = /cta=(\d+)/.exec(hash);
  let c = m ? CTAS.get(Number(m[1])) : null;
  if (m && !c) stats.errors.push('no CTA ' + m[1] + ' in this trace');
  if (!m && !/grid/.test(hash)) {
    if (D.initial_cta !== null) c = CTAS.get(D.initial_cta);
    else if (D.ctas.length === 1) c = D.ctas[0];
  }
  show(c ? ctaView(c) : gridView(expandedIn(hash)));
}

function route() {
  // '&q=QUERY' (URI-encoded) sets the filter; it is taken out first so no pattern reads inside it.
  const q = /(?:^#|&)q=([^&]*)/.exec(location.hash);
  const hash = location.hash.replace(/(^#|&)q=[^&]*/, '$1');
  if (q) {
    try { FILTER.q = decodeURIComponent(q[1]); } catch (err) { FILTER.q = q[1]; }
    $('query').value = FILTER.q;
  }
  if (/(?:^#|&)hide=1/.test(hash)) { FILTER.hide = $('qhide').checked = true; }
  if (!RUN || !RUN.route(hash)) routeLaunch(hash);
  if (q && D) applyFilter(); else filterCounts(); // (D: a run's page may still be loading it)
  stats.filterHide = FILTER.hide;
  // '&x=A-B': open on that range of the view's axis (cycles in a CTA, ns in the grid and run).
  const x = /x=(-?[\d.]+)-(-?[\d.]+)/.exec(hash);
  if (x && Number(x[2]) > Number(x[1])) { view.x0 = Number(x[1]); view.x1 = Number(x[2]); }
  // '&sel=B-E': the range selection, on the same axis.
  const sel = /sel=(-?[\d.]+)-(-?[\d.]+)/.exec(hash);
  if (sel) select(Number(sel[1]), Number(sel[2])); else clearSelection();
  // '#pick=N' or '#pick=x,y,z': what typing into the CTA picker does (then the hash is cta=N).
  const pick = /pick=([\d,]+)/.exec(hash);
  if (pick && view.kind !== 'run') { $('ctanum').value = pick[1]; pickCta(pick[1]); }
}

function zoom(f, at) {
  const span = view.x1 - view.x0;
  const nspan = Math.min(Math.max(span * f, 1), (view.hi - view.lo) * 50 + 1);
  const g = (at - view.x0) / span;
  view.x0 = at - g * nspan;
  view.x1 = view.x0 + nspan;
  repaint();
}

// Sets (or with null removes) KEY=VALUE in the URL hash without a hashchange (no re-route).
function setHashParam(key, value) {
  const parts = location.hash.slice(1).split('&').filter(p => p && !p.startsWith(key + '='));
  if (value !== null) parts.push(key + '=' + value);
  history.replaceState(null, '', '#' + parts.join('&'));
}
