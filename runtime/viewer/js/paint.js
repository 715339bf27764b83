// A paint: the visible tracks, flows, the selection, the gutter's labels and the ruler; the
// stats (page_stats.js) are zeroed before and published after.
/* global COUNTERS, ctx, dpr, drawFlows, drawGridTrack, drawInstants, drawSelection, drawSlices,
          GUTTER, gutterText, H, niceStep, publish, RULER, scale:writable, scroller, stats, view, W, X */
/* exported paint, repaint */

// One unit for the whole ruler, named in the axis label: ticks are plain numbers in it, chosen
// by the largest value shown (so 1,500,200 ns reads 1.5002 ms, not 1500200).
const UNITS = {ns: [[1e9, 's'], [1e6, 'ms'], [1e3, '\u00b5s'], [1, 'ns']],
               cycles: [[1e6, 'M cycles'], [1e3, 'k cycles'], [1, 'cycles']]};
function rulerUnit(step) {
  const m = Math.max(Math.abs(view.x0), Math.abs(view.x1), step);
  const [f, name] = UNITS[view.unit].find(([f]) => m >= f * 10) || UNITS[view.unit].at(-1);
  const digits = Math.max(0, Math.ceil(-Math.log10(step / f) - 1e-9));
  return {name, text: v => { const s = (v / f).toFixed(digits); return Number(s) === 0 ? '0' : s; }};
}

function drawRuler() {
  ctx.fillStyle = '#f6f8fa';
  ctx.fillRect(0, 0, W, RULER);
  ctx.strokeStyle = '#d0d7de';
  ctx.beginPath(); ctx.moveTo(0, RULER - 0.5); ctx.lineTo(W, RULER - 0.5); ctx.stroke();
  const step = niceStep((view.x1 - view.x0) / Math.max(1, (W - GUTTER) / 110));
  ctx.fillStyle = '#57606a';
  ctx.font = '10px system-ui,sans-serif';
  const unit = view.unit ? rulerUnit(step) : null, fmt = unit ? unit.text : view.fmt;
  for (let v = Math.ceil(view.x0 / step) * step; v <= view.x1; v += step) {
    const x = Math.round(X(v)) + 0.5;
    ctx.beginPath(); ctx.moveTo(x, RULER - 6); ctx.lineTo(x, RULER); ctx.stroke();
    ctx.fillText(fmt(v), x + 2, RULER - 8);
  }
  ctx.fillStyle = '#1f2328';
  ctx.font = '600 11px system-ui,sans-serif';
  ctx.fillText(gutterText(unit ? `${view.axis} (${unit.name})` : view.axis, GUTTER - 12), 8, 15);
}

function paint() {
  const t0 = performance.now();
  for (const k of COUNTERS) stats[k] = 0;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W, H);
  scale = (W - GUTTER) / (view.x1 - view.x0);
  const top = scroller.scrollTop;
  ctx.save();
  ctx.beginPath(); ctx.rect(0, RULER, W, H - RULER); ctx.clip();
  const ts = view.tracks;
  let first = 0, hiT = ts.length; // first track not entirely above the scrolled-off part
  while (first < hiT) { const m = (first + hiT) >>> 1; if (ts[m].y + ts[m].h <= top) first = m + 1; else hiT = m; }
  const visible = [];
  for (let k = first; k < ts.length && ts[k].y < top + H - RULER; k++) {
    const t = ts[k], y = RULER + t.y - top;
    visible.push([t, y]);
    stats.tracks++;
    if (t.kind === 'g') {
      ctx.fillStyle = '#f6f8fa';
      ctx.fillRect(0, y, W, t.h);
      ctx.strokeStyle = '#d0d7de';
      ctx.beginPath(); ctx.moveTo(0, y + 0.5); ctx.lineTo(W, y + 0.5); ctx.stroke();
    } else if (t.kind === 's') {
      drawSlices(t.first, t.end, view.B, view.E, y + 1, t.h - 2, true);
    } else if (t.kind === 'i') {
      drawInstants(t.first, t.end, view.A, y, t.h);
    } else if (t.kind === 'sm') {
      drawGridTrack(t, y);
    } else {
      view.drawTrack(t, y);
    }
  }
  if (view.kind === 'cta') drawFlows(top);
  drawSelection();
  // Gutter last: it covers slices that begin left of the view.
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, RULER, GUTTER - 2, H - RULER);
  ctx.strokeStyle = '#d0d7de';
  ctx.beginPath(); ctx.moveTo(GUTTER - 1.5, RULER); ctx.lineTo(GUTTER - 1.5, H); ctx.stroke();
  for (const [t, y] of visible) {
    if (!t.label) continue;
    const lane = t.kind === 's' || t.kind === 'i'; // lanes are indented under their group
    ctx.fillStyle = t.warn ? '#b3261e' : '#1f2328';
    ctx.font = lane ? '11px system-ui,sans-serif' : '600 11px system-ui,sans-serif';
    ctx.fillText(gutterText(t.label, GUTTER - (lane ? 16 : 6) - 6), lane ? 16 : 6,
                 y + Math.min(t.h, 16) - 4);
  }
  ctx.restore();
  drawRuler();
  const now = performance.now();
  stats.paintMs = now - t0;
  stats.paints++;
  if (stats.firstDrawnMs === null) {
    // firstDrawnMs: the first paint's drawing is done; firstPaintMs: the frame that shows it is
    // rendered (a task queued from that frame's requestAnimationFrame runs after its rendering).
    // Both in ms since navigation start, as the user waits for them.
    stats.firstDrawnMs = now;
    requestAnimationFrame(() => setTimeout(() => {
      stats.firstPaintMs = performance.now();
      publish();
    }));
  }
  publish();
}

let pending = false;
function repaint() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; paint(); });
}
