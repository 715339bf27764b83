// What is under the pointer: the track, the slice, instant or CTA there, and the tooltip's text.
/* global $, ctaLabel, CTAS, D, fmtCyc, fmtNs, groupName, GUTTER, I, laneName, linkPrefix, LOC,
          lowerBound, rowLabel, RULER, S, scale, scroller, sliceNear, T, toggledHash, view */
/* exported tip, hit */
const tip = $('tip');
function trackAt(cy) {
  const ts = view.tracks;
  let lo = 0, hi = ts.length;
  while (lo < hi) { const m = (lo + hi) >>> 1; if (ts[m].y + ts[m].h <= cy) lo = m + 1; else hi = m; }
  return lo < ts.length && ts[lo].y <= cy ? ts[lo] : null;
}
// The gutter beside a grid band: which group it is; a click expands or collapses its slice rows.
function bandToggle(t, y) {
  const b = Math.floor(y / t.band), groups = view.bands.groups;
  const g = groups.findIndex((G, k) => b >= G.first &&
                             b < (k + 1 < groups.length ? groups[k + 1].first : view.bands.count));
  if (g < 0) return null;
  const G = groups[g];
  if (G.slices < 2) return {text: groupName(g)};
  return {text: `${groupName(g)}: ${G.slices} slice rows per CTA \u00b7 click to ` +
                (G.open ? 'collapse them into one band' : 'show each in its own band'),
          hash: toggledHash(view.expanded, g)};
}
function describeSlice(i) {
  const R = D.rows[S.row[i]], c = CTAS.get(R.cta);
  const cut = S.flags[i] & 1; // its END was never recorded: no duration to show
  return [D.names[S.name[i]] + (cut ? '   [incomplete: never ended]' : ''),
    `payload   ${S.payload[i]}`,
    `start     ${fmtCyc(S.b_cyc[i])} (CTA)  \u00b7  ${fmtNs(S.b_ns[i])} (global)`,
    cut ? 'duration  unknown: its end was not recorded (drawn to the row\'s last timestamp)'
        : `duration  ${Math.round(S.e_cyc[i] - S.b_cyc[i])} cyc  \u00b7  ${fmtNs(S.e_ns[i] - S.b_ns[i])}`,
    `group     ${rowLabel(R)}  \u00b7  lane ${laneName(S.lane[i])}`,
    c ? ctaLabel(c) : '', `at        ${LOC.get(S.site[i]) || 'site ' + S.site[i]}`].join('\n');
}
function describeInstant(i) {
  const R = D.rows[I.row[i]];
  return [D.names[I.name[i]] + '   (instant)', `payload   ${I.payload[i]}`,
    `at        ${fmtCyc(I.cyc[i])} (CTA)  \u00b7  ${fmtNs(I.ns[i])} (global)`,
    `group     ${rowLabel(R)}  \u00b7  lane ${laneName(I.lane[i])}`,
    `at        ${LOC.get(I.site[i]) || 'site ' + I.site[i]}`].join('\n');
}
// What is under the pointer: {text} for the tooltip, and `hash`, where a click (or Enter) goes.
function hit(mx, my) {
  if (my < RULER) return null;
  const t = trackAt(my - RULER + scroller.scrollTop);
  if (!t) return null;
  if (mx < GUTTER && t.kind === 'sm') return bandToggle(t, my - RULER + scroller.scrollTop - t.y - 2);
  if (mx < GUTTER) return t.title ? {text: t.title} : null;
  const at = T(mx), tol = 3 / scale;
  if (t.kind === 's') {
    const k = sliceNear(t.first, t.end, view.B, view.E, at, tol);
    return k >= 0 ? {text: describeSlice(k)} : null;
  }
  if (t.kind === 'i') {
    const k = lowerBound(view.A, t.first, t.end, at - 5 / scale);
    return k < t.end && view.A[k] <= at + 5 / scale ? {text: describeInstant(k)} : null;
  }
  if (t.kind === 'sm') {
    const k = lowerBound(t.IE, 0, t.items.length, at - tol);
    if (k >= t.items.length || t.IB[k] > at + tol) return null;
    const c = t.items[k];
    let text = `${ctaLabel(c)}\nstart ${fmtNs(c.b_ns)}  \u00b7  span ${fmtNs(c.e_ns - c.b_ns)}\n` +
      `${c.slices} slices  \u00b7  ${c.instants} instants  (click to open)`;
    const y = my - RULER + scroller.scrollTop - t.y - 2, b = Math.floor(y / t.band);
    for (const [row, , level, first, count] of c.tracks) {
      if (level !== 0 || view.bands.band[row] !== b) continue;
      const s = sliceNear(first, first + count, S.b_ns, S.e_ns, at, tol);
      if (s >= 0) { text = describeSlice(s) + '\n\n' + text; break; }
    }
    return {text, hash: linkPrefix + 'cta=' + c.cta};
  }
  return view.hitTrack ? view.hitTrack(t, at, tol) : null;
}
