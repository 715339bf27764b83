// Drawing on the canvas: slices, instants, a grid row of CTAs, flow arrows. Only the visible part
// of each track is visited (binary search on begin/end) and slices narrower than a pixel merge,
// so a million events stay interactive.
/* global $, COLORS, FA, FILTER, FL, fmtDur, GUTTER, I, lowerBound, RULER, S, SPANS, stats */
/* exported canvas, ctx, scroller, W, H, view, scale, ranges, gutterFor, X, T, resize, drawSlices,
            drawInstants, drawGridTrack, drawFlows, gutterText, dpr */
const canvas = $('cv'), ctx = canvas.getContext('2d'), scroller = $('scroller');
let W = 0, H = 0, dpr = 1, view = null, scale = 1;
const ranges = new Map(); // view key -> [x0, x1], kept across tab switches
const hatch = (() => {
  const p = document.createElement('canvas');
  p.width = p.height = 8;
  const g = p.getContext('2d');
  g.strokeStyle = 'rgba(255,255,255,0.85)';
  g.lineWidth = 2;
  g.beginPath(); g.moveTo(0, 8); g.lineTo(8, 0); g.moveTo(-2, 2); g.lineTo(2, -2);
  g.moveTo(6, 10); g.lineTo(10, 6); g.stroke();
  return ctx.createPattern(p, 'repeat');
})();
// The gutter: as wide as the widest track label (group rows bold at 6 px, lanes at 16 px from the
// left), within 170 px and 45% of the window.
function gutterFor(tracks) {
  let w = 0;
  for (const t of tracks) {
    if (!t.label) continue;
    const lane = t.kind === 's' || t.kind === 'i';
    ctx.font = lane ? '11px system-ui,sans-serif' : '600 11px system-ui,sans-serif';
    w = Math.max(w, ctx.measureText(t.label).width + (lane ? 16 : 6) + 10);
  }
  return Math.round(Math.max(170, Math.min(w, window.innerWidth * 0.45)));
}
const X = v => GUTTER + (v - view.x0) * scale;
const T = px => view.x0 + (px - GUTTER) / scale;

function resize() {
  dpr = window.devicePixelRatio || 1;
  W = Math.max(scroller.clientWidth, GUTTER + 50);
  H = Math.max(scroller.clientHeight, RULER + 20);
  canvas.style.width = W + 'px';
  canvas.style.height = H + 'px';
  canvas.width = Math.round(W * dpr);
  canvas.height = Math.round(H * dpr);
  if (view) $('spacer').style.height = Math.max(0, view.height + RULER + 8 - H) + 'px';
}

// Text inside slices: character widths measured once each (11px font), summed per string.
const charWidths = new Map();
function textWidth(s) {
  let w = 0;
  for (const ch of s) {
    let cw = charWidths.get(ch);
    if (cw === undefined) charWidths.set(ch, cw = ctx.measureText(ch).width);
    w += cw;
  }
  return w;
}
function fitText(s, px) { // s, or its longest prefix that fits with an ellipsis ('' if < 2 chars)
  if (textWidth(s) <= px) return s;
  const ell = textWidth('\u2026');
  let w = 0, k = 0;
  for (const ch of s) { w += textWidth(ch); if (w + ell > px) break; k += ch.length; }
  return k >= 2 ? s.slice(0, k) + '\u2026' : '';
}
const MIN_LABEL_PX = 24; // no text in a narrower slice
// "name #payload · duration", else "name #payload", else the name cut to the pixels available.
function sliceText(P, i, px) {
  const name = P.names[P.name[i]];
  if (P !== SPANS) return fitText(name, px);
  const withPayload = `${name} #${S.payload[i]}`;
  const full = `${withPayload} \u00b7 ${fmtDur(S.e_ns[i] - S.b_ns[i])}`;
  if (textWidth(full) <= px) return full;
  if (textWidth(withPayload) <= px) return withPayload;
  return fitText(name, px);
}

// Spans [first, end) of one track (sorted, non-overlapping) from the table P: colour
// P.colors[P.name[i]], flags bit 0 hatched, bit 1 grey. Launch slices (P === SPANS) that the
// filter rejects are dimmed, or not drawn (nor counted) when the filter hides them.
function drawSlices(first, end, B, E, y, h, labels, P = SPANS) {
  const lo = view.x0, hi = view.x1;
  const M = P === SPANS ? FILTER.M : null, hide = M && FILTER.hide;
  let i = lowerBound(E, first, end, lo);
  ctx.font = '11px system-ui,sans-serif';
  while (i < end) {
    const b = B[i];
    if (b > hi) break;
    const px0 = X(b), px1 = X(E[i]);
    const color = P.flags[i] & 2 ? '#c6cbd1' : P.colors[P.name[i]];
    if (px1 - px0 >= 1) {
      const match = !M || M[i + 1] > M[i];
      if (!match && hide) { i++; continue; }
      const x0 = Math.max(px0, GUTTER - 2), x1 = Math.min(px1, W + 2);
      ctx.globalAlpha = match ? 1 : 0.18;
      ctx.fillStyle = color;
      ctx.fillRect(x0, y, x1 - x0, h);
      if (P.flags[i] & 1) { ctx.fillStyle = hatch; ctx.fillRect(x0, y, x1 - x0, h); }
      if (labels && x1 - x0 >= MIN_LABEL_PX) {
        const text = sliceText(P, i, x1 - x0 - 6);
        if (text) { ctx.fillStyle = '#111'; ctx.fillText(text, x0 + 3, y + h - 5); }
      }
      ctx.globalAlpha = 1;
      stats[P.drawn]++; stats[P.visible]++;
      if (M && match) { stats.matchesDrawn++; stats.matchesVisible++; }
      i++;
      continue;
    }
    // Narrower than a pixel: one 1-px mark for every slice that starts in this pixel column.
    const col = Math.floor(px0);
    let j = lowerBound(B, i + 1, end, T(col + 1));
    if (j - 1 > i && X(E[j - 1]) - X(B[j - 1]) >= 1) j--;
    const matches = M ? M[j] - M[i] : j - i;
    if (hide && !matches) { i = j; continue; }
    const right = Math.min(Math.max(col + 1, X(E[j - 1])), W + 2);
    ctx.globalAlpha = matches ? 1 : 0.18;
    ctx.fillStyle = color;
    ctx.fillRect(col, y, right - col, h);
    ctx.globalAlpha = 1;
    stats[P.drawn]++;
    stats[P.visible] += hide ? matches : j - i;
    if (M && matches) { stats.matchesDrawn++; stats.matchesVisible += matches; }
    i = j;
  }
}

function drawInstants(first, end, A, y, h) {
  const pad = 5 / scale;
  let i = lowerBound(A, first, end, view.x0 - pad);
  while (i < end) {
    const a = A[i];
    if (a > view.x1 + pad) break;
    const px = X(a), match = !FILTER.IM || FILTER.IM[i];
    if (!match && FILTER.hide) { i++; continue; }
    ctx.globalAlpha = match ? 1 : 0.18;
    ctx.fillStyle = COLORS[I.name[i]];
    ctx.beginPath();
    ctx.moveTo(px - 4, y + 2); ctx.lineTo(px + 4, y + 2); ctx.lineTo(px, y + h - 2);
    ctx.closePath(); ctx.fill();
    ctx.strokeStyle = 'rgba(0,0,0,0.45)'; ctx.lineWidth = 0.5; ctx.stroke();
    ctx.globalAlpha = 1;
    const j = lowerBound(A, i + 1, end, T(px + 2)); // markers closer than 2 px share one
    stats.instantsDrawn++;
    stats.instantsVisible += j - i;
    i = j;
  }
}

function drawGridTrack(t, y) {
  let k = lowerBound(t.IE, 0, t.items.length, view.x0);
  ctx.font = '10px system-ui,sans-serif';
  for (; k < t.items.length && t.IB[k] <= view.x1; k++) {
    const c = t.items[k];
    const x0 = Math.max(X(c.b_ns), GUTTER - 2), x1 = Math.min(Math.max(X(c.e_ns), x0 + 1), W + 2);
    ctx.fillStyle = '#eaeef2';
    ctx.fillRect(x0, y, x1 - x0, t.h);
    ctx.strokeStyle = '#8c959f'; ctx.lineWidth = 1;
    ctx.strokeRect(x0 + 0.5, y + 0.5, Math.max(0, x1 - x0 - 1), t.h - 1);
    stats.ctasDrawn++;
    if (x1 - x0 >= 3) {
      const band = view.bands.band, rows = new Set(), used = new Set();
      for (const [row, , level, first, count] of c.tracks) {
        if (level !== 0) continue;
        drawSlices(first, first + count, S.b_ns, S.e_ns, y + 2 + band[row] * t.band, t.band - 1,
                   false);
        rows.add(row);
        used.add(band[row]);
      }
      stats.gridRowsDrawn += rows.size;
      stats.gridBandsDrawn += used.size;
    }
    if (x1 - x0 > 40) {
      ctx.fillStyle = '#1f2328';
      ctx.fillText('CTA ' + c.cta, x0 + 3, y + t.h - 3);
    }
  }
}

function sliceTrack(idx) { // the track holding page slice idx (CTA view)
  const ts = view.sliceTracks;
  let lo = 0, hi = ts.length;
  while (lo < hi) { const m = (lo + hi) >>> 1; if (ts[m].first <= idx) lo = m + 1; else hi = m; }
  return ts[lo - 1];
}

function drawFlows(top) {
  const c = view.c;
  ctx.strokeStyle = 'rgba(31,35,40,0.75)';
  ctx.fillStyle = 'rgba(31,35,40,0.75)';
  ctx.lineWidth = 1.2;
  for (let f = c.f0; f < c.f1 && stats.flowsDrawn < 20000; f++) {
    const s = FL[2 * f], d = FL[2 * f + 1];
    // From src's end to the point inside dst where the wait ended: vertical or forward.
    const x0 = X(S.e_cyc[s]), x1 = X(FA[f]);
    if ((x0 < GUTTER && x1 < GUTTER) || (x0 > W && x1 > W)) continue;
    const ts = sliceTrack(s), td = sliceTrack(d);
    if (!ts || !td) continue;
    // With a filter, an arrow between two rejected slices is dimmed (or hidden with them).
    const M = FILTER.M, kept = !M || M[s + 1] > M[s] || M[d + 1] > M[d];
    if (!kept && FILTER.hide) continue;
    const y0 = RULER + ts.y - top + ts.h / 2, y1 = RULER + td.y - top + td.h / 2;
    if ((y0 < RULER && y1 < RULER) || (y0 > H && y1 > H)) continue;
    ctx.globalAlpha = kept ? 1 : 0.18;
    let ux = 1, uy = 0; // direction of the arrow head
    ctx.beginPath();
    ctx.moveTo(x0, y0);
    if (x1 - x0 < 24) { // (nearly) vertical: a straight line
      const len = Math.hypot(x1 - x0, y1 - y0) || 1;
      ux = (x1 - x0) / len; uy = (y1 - y0) / len;
      ctx.lineTo(x1, y1);
    } else {
      const dx = Math.min(80, (x1 - x0) / 2);
      ctx.bezierCurveTo(x0 + dx, y0, x1 - dx, y1, x1, y1);
    }
    ctx.stroke();
    ctx.beginPath();
    ctx.moveTo(x1, y1);
    ctx.lineTo(x1 - 7 * ux + 4 * uy, y1 - 7 * uy - 4 * ux);
    ctx.lineTo(x1 - 7 * ux - 4 * uy, y1 - 7 * uy + 4 * ux);
    ctx.closePath(); ctx.fill();
    ctx.globalAlpha = 1;
    stats.flowsDrawn++;
  }
}

// A label cut to `px` at the current font (only when the window is too narrow for the gutter).
function gutterText(s, px) {
  if (ctx.measureText(s).width <= px) return s;
  let lo = 0, hi = s.length; // the longest prefix that fits with an ellipsis
  while (lo < hi) {
    const m = (lo + hi + 1) >> 1;
    if (ctx.measureText(s.slice(0, m) + '\u2026').width <= px) lo = m; else hi = m - 1;
  }
  return s.slice(0, lo) + '\u2026';
}
