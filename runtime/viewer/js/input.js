// Mouse, wheel and keys: pan, zoom, Shift+drag to select a range, click or Enter to open what is
// under the pointer, / for the filter, [ and ] for the previous and next CTA.
/* global $, canvas, GUTTER, H, hit, paint, repaint, resize, route, scale, scroller, SEL:writable, select,
          setHashParam, stepCta, T, tip, view, W, zoom */
let drag = null, hovered = null;
canvas.addEventListener('mousedown', e => {
  const r = canvas.getBoundingClientRect(), mx = e.clientX - r.left;
  drag = {x: e.clientX, x0: view.x0, x1: view.x1, moved: false,
          select: e.shiftKey && mx >= GUTTER && (view.kind === 'cta' || view.kind === 'grid'),
          at: T(mx)};
  e.preventDefault();
});
window.addEventListener('mouseup', e => {
  const r = canvas.getBoundingClientRect();
  if (drag && drag.select && drag.moved) {
    const at = T(e.clientX - r.left);
    const b = +Math.min(drag.at, at).toFixed(3), end = +Math.max(drag.at, at).toFixed(3);
    select(b, end); // the rounded numbers: the link gives the same statistics
    setHashParam('sel', `${b}-${end}`);
    paint(); // at once, so the stats carry the selection as soon as the button is released
  } else if (drag && !drag.moved) {
    const h = hit(e.clientX - r.left, e.clientY - r.top);
    if (h && h.hash) location.hash = h.hash;
  }
  drag = null;
});
window.addEventListener('mousemove', e => {
  const r = canvas.getBoundingClientRect(), mx = e.clientX - r.left, my = e.clientY - r.top;
  if (drag && drag.select) { // the range follows the pointer; its statistics come on release
    if (Math.abs(e.clientX - drag.x) > 3) drag.moved = true;
    const at = T(mx);
    SEL = {key: view.key, b: Math.min(drag.at, at), e: Math.max(drag.at, at), names: []};
    tip.style.display = 'none';
    repaint();
    return;
  }
  if (drag) {
    if (Math.abs(e.clientX - drag.x) > 3) drag.moved = true;
    const dt = (e.clientX - drag.x) / scale;
    view.x0 = drag.x0 - dt;
    view.x1 = drag.x1 - dt;
    tip.style.display = 'none';
    repaint();
    return;
  }
  hovered = mx >= 0 && my >= 0 && mx < W && my < H ? hit(mx, my) : null;
  if (!hovered) { tip.style.display = 'none'; return; }
  tip.textContent = hovered.text;
  tip.style.display = 'block';
  const tw = tip.offsetWidth, th = tip.offsetHeight;
  tip.style.left = Math.min(e.clientX + 14, window.innerWidth - tw - 4) + 'px';
  tip.style.top = (e.clientY + 16 + th > window.innerHeight ? e.clientY - th - 8 : e.clientY + 16) + 'px';
});
window.addEventListener('keydown', e => {
  if (e.target instanceof HTMLInputElement) { // typing in the filter or the CTA picker
    if (e.key === 'Escape') e.target.blur();
    return;
  }
  if (e.key === 'Enter' && hovered && hovered.hash) location.hash = hovered.hash;
  if (!view || view.kind === 'run') return;
  if (e.key === '/') { e.preventDefault(); $('query').focus(); }
  if (e.key === '[' || e.key === ']') stepCta(e.key === ']' ? 1 : -1);
});
canvas.addEventListener('wheel', e => {
  e.preventDefault();
  const d = e.deltaY * (e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1);
  if (e.shiftKey) { scroller.scrollTop += d; return; }
  const r = canvas.getBoundingClientRect(), mx = e.clientX - r.left;
  zoom(Math.exp(d * 0.0015), mx < GUTTER ? (view.x0 + view.x1) / 2 : T(mx));
}, {passive: false});
scroller.addEventListener('scroll', repaint);
window.addEventListener('resize', () => { resize(); repaint(); });
// A new view paints at once (not at the next frame): its stats never show the old view's counts.
window.addEventListener('hashchange', () => { hovered = null; tip.style.display = 'none'; route(); paint(); });
$('zin').onclick = () => zoom(0.5, (view.x0 + view.x1) / 2);
$('zout').onclick = () => zoom(2, (view.x0 + view.x1) / 2);
$('zreset').onclick = () => {
  const pad = (view.hi - view.lo) * 0.01;
  view.x0 = view.lo - pad;
  view.x1 = view.hi + pad;
  repaint();
};
