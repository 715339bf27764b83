// The views: a CTA (its rows, lanes and levels on its own clock) and the grid (CTAs by SM on
// global time), each a list of tracks with a y position, and an x range.
/* global ctaLabel, D, fmtCyc, fmtNs, gutterFor, I, laneName, linkPrefix, neverEnded, rowLabel, S,
          startedEmpty */
/* exported RULER, GUTTER, ctaView, gridView, expandedIn, toggledHash */
const RULER = 22, SLICE_H = 18, INST_H = 14, HEAD_H = 16;
let GUTTER = 170;

function ctaView(c) {
  const tracks = [], lanes = new Map();
  for (const [row, lane, level, first, count] of c.tracks) {
    if (!lanes.has(row)) lanes.set(row, new Map());
    const m = lanes.get(row);
    if (!m.has(lane)) m.set(lane, {levels: [], inst: null});
    m.get(lane).levels.push({level, first, count});
  }
  for (const [row, lane, first, count] of c.itracks) {
    if (!lanes.has(row)) lanes.set(row, new Map());
    const m = lanes.get(row);
    if (!m.has(lane)) m.set(lane, {levels: [], inst: null});
    m.get(lane).inst = {first, count};
  }
  let y = 0;
  for (const row of c.rows) {
    const R = D.rows[row];
    const rate = R.measured ? `${R.ghz.toFixed(3)} GHz`
                            : `${R.ghz.toFixed(3)} GHz (${R.rate_source || 'assumed'})`;
    let label = rowLabel(R);
    if (neverEnded(R)) label += ' \u00b7 never ended';
    if (startedEmpty(R)) label += ' \u00b7 empty';
    if (R.dropped) label += ` \u00b7 ${R.dropped} dropped`;
    label += ` \u00b7 ${rate}`;
    tracks.push({kind: 'g', row, y, h: HEAD_H, label,
                 warn: R.dropped > 0 || (!R.closed && !startedEmpty(R))});
    y += HEAD_H;
    const m = lanes.get(row) || new Map();
    for (const lane of [...m.keys()].sort((a, b) => a - b)) {
      const e = m.get(lane);
      e.levels.sort((a, b) => a.level - b.level);
      for (const L of e.levels) {
        tracks.push({kind: 's', row, lane, level: L.level, first: L.first, end: L.first + L.count,
                     y, h: SLICE_H, label: L.level ? '' : laneName(lane)});
        y += SLICE_H;
      }
      if (e.inst) {
        tracks.push({kind: 'i', row, lane, first: e.inst.first, end: e.inst.first + e.inst.count,
                     y, h: INST_H, label: e.levels.length ? '' : laneName(lane)});
        y += INST_H;
      }
    }
  }
  const sliceTracks = tracks.filter(t => t.kind === 's').sort((a, b) => a.first - b.first);
  const info = `${ctaLabel(c)} \u00b7 ${c.slices} slices \u00b7 ${c.instants} instants` +
               (c.dropped ? ` \u00b7 ${c.dropped} dropped` : '');
  return {kind: 'cta', key: linkPrefix + 'cta' + c.cta, c, tracks, sliceTracks, height: y, lo: 0,
          hi: Math.max(c.end_cyc, 1), B: S.b_cyc, E: S.e_cyc, A: I.cyc, fmt: fmtCyc, info,
          axis: 'CTA clock', unit: 'cycles', gutter: gutterFor(tracks)};
}

// The grid's bands inside each CTA: one per group, or, for an expanded TRACE_GROUPS group, one per
// slice row. `expanded`: group indexes. Returns {band: per row its band, count, groups: per group
// {first band, slice rows per CTA}}.
function gridBands(expanded) {
  const G = Math.max(1, D.groups.length), slices = new Array(G).fill(0);
  for (const R of D.rows) if (R.slice !== null && R.slice !== undefined)
    slices[R.group % G] = Math.max(slices[R.group % G], R.slice + 1);
  const groups = [];
  let count = 0;
  for (let g = 0; g < G; g++) {
    const open = slices[g] > 1 && expanded.has(g);
    groups.push({first: count, slices: slices[g], open});
    count += open ? slices[g] : 1;
  }
  const band = new Int32Array(D.rows.length);
  D.rows.forEach((R, r) => {
    const g = groups[R.group % G];
    band[r] = g.first + (g.open ? R.slice : 0);
  });
  return {band, count, groups};
}
// "expand=1,3" in the hash: the groups whose slice rows the grid shows one by one.
function expandedIn(hash) {
  const m = /expand=([\d,]*)/.exec(hash);
  return new Set(m ? m[1].split(',').filter(x => x !== '').map(Number) : []);
}
function gridHash(expanded) {
  const list = [...expanded].sort((a, b) => a - b).join(',');
  return linkPrefix + 'grid' + (list ? '&expand=' + list : '');
}
function toggledHash(expanded, g) {
  const next = new Set(expanded);
  if (next.has(g)) next.delete(g); else next.add(g);
  return gridHash(next);
}

function gridView(expanded) {
  const bySm = new Map();
  for (const c of D.ctas) {
    if (!bySm.has(c.sm)) bySm.set(c.sm, []);
    bySm.get(c.sm).push(c);
  }
  const bands = gridBands(expanded);
  const B = bands.count;
  const band = B > 4 ? 3 : 5, h = Math.max(16, 4 + band * B);
  const tracks = [];
  let y = 0, lo = Infinity, hi = -Infinity;
  for (const sm of [...bySm.keys()].sort((a, b) => a - b)) {
    const ctas = bySm.get(sm).sort((a, b) => a.b_ns - b.b_ns);
    const subs = []; // CTAs resident at the same time go on separate sub-rows
    for (const c of ctas) {
      let k = subs.findIndex(s => s.end <= c.b_ns);
      if (k < 0) { k = subs.length; subs.push({end: 0, items: []}); }
      subs[k].end = c.e_ns;
      subs[k].items.push(c);
      lo = Math.min(lo, c.b_ns);
      hi = Math.max(hi, c.e_ns);
    }
    subs.forEach((s, k) => {
      tracks.push({kind: 'sm', sm, items: s.items, IB: Float64Array.from(s.items, c => c.b_ns),
                   IE: Float64Array.from(s.items, c => c.e_ns), y, h, band,
                   label: k ? '' : `SM ${sm}`});
      y += h + 2;
    });
  }
  if (!isFinite(lo)) { lo = 0; hi = 1; }
  return {kind: 'grid', key: linkPrefix + 'grid', tracks, sliceTracks: [], height: y, lo,
          hi: Math.max(hi, lo + 1), B: S.b_ns, E: S.e_ns, A: I.ns, fmt: fmtNs, bands, expanded,
          info: `${D.ctas.length} CTAs on ${bySm.size} SMs`, unit: 'ns', gutter: gutterFor(tracks),
          axis: 'global time',
          hint: bands.groups.some(G => G.slices > 1)
            ? 'grid: click a CTA to open it, a group\u2019s button (or the gutter by its band) to ' +
              'expand its slice rows' : null};
}
