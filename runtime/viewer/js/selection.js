// The range selection (Shift+drag, or #...&sel=B-E): its statistics (range_stats.js) on the view's
// axis: the CTA's cycles (trace-view analyze --window B:E --cta N), or global ns in the grid (the
// whole launch); the table beside the timeline and the shaded range.
/* global $, ctaFirstInstant, ctx, D, el, fmtNs, GUTTER, H, I, rangeStats, repaint, RULER, S,
          setHashParam, stats, view, W, X */
/* exported SEL, select, clearSelection, drawSelection */
let SEL = null; // {key: the view's, b, e, names: [{name, count, clipped, full, instants}]}
function windowStats(b, e) {
  const c = view.kind === 'cta' ? view.c : null;
  const i0 = c ? ctaFirstInstant(c) : 0;
  return rangeStats(D.names, {B: c ? S.b_cyc : S.b_ns, E: c ? S.e_cyc : S.e_ns, name: S.name,
                              first: c ? c.s0 : 0, end: c ? c.s1 : S.n},
                    {A: c ? I.cyc : I.ns, name: I.name, first: i0, end: c ? i0 + c.instants : I.n},
                    b, e);
}
function select(b, e) {
  if (!(e >= b) || !view || (view.kind !== 'cta' && view.kind !== 'grid')) { clearSelection(); return; }
  const t0 = performance.now();
  SEL = {key: view.key, b, e, names: windowStats(b, e)};
  stats.selectionMs = performance.now() - t0;
  const unit = view.kind === 'cta' ? 'cycles' : 'ns';
  stats.selection = {view: view.kind, cta: view.kind === 'cta' ? view.c.cta : null, unit, begin: b,
                     end: e, slices: SEL.names.reduce((a, x) => a + x.count, 0),
                     instants: SEL.names.reduce((a, x) => a + x.instants, 0), names: SEL.names};
  const f = unit === 'ns' ? fmtNs : v => Math.round(v).toLocaleString('en-US') + ' cyc';
  $('seltitle').textContent = `${f(b)} \u2013 ${f(e)} (${f(e - b)})` +
    (view.kind === 'cta' ? ` of CTA ${view.c.cta}` : ' of every CTA');
  const rows = SEL.names.map(x => {
    const tr = el('tr');
    tr.append(el('td', x.name), el('td', String(x.count)), el('td', x.count ? f(x.clipped) : ''),
              el('td', x.count ? f(x.full) : ''), el('td', String(x.instants)));
    return tr;
  });
  if (!rows.length) rows.push(el('tr', 'nothing in this range'));
  $('selrows').replaceChildren(...rows);
  $('sel').hidden = false;
}
function clearSelection() {
  SEL = null;
  stats.selection = null;
  $('sel').hidden = true;
}
$('selclose').onclick = () => { clearSelection(); setHashParam('sel', null); repaint(); };
function drawSelection() {
  if (!SEL || SEL.key !== view.key) return;
  const x0 = Math.max(X(SEL.b), GUTTER), x1 = Math.min(Math.max(X(SEL.e), x0 + 1), W);
  if (x1 <= GUTTER || x0 >= W) return;
  ctx.fillStyle = 'rgba(9,105,218,0.12)';
  ctx.fillRect(x0, RULER, x1 - x0, H - RULER);
  ctx.strokeStyle = 'rgba(9,105,218,0.8)';
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(Math.round(x0) + 0.5, RULER); ctx.lineTo(Math.round(x0) + 0.5, H);
  ctx.moveTo(Math.round(x1) - 0.5, RULER); ctx.lineTo(Math.round(x1) - 0.5, H);
  ctx.stroke();
}
