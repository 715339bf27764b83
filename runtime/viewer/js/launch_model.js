// One launch's model: its data object (launch_data in export_html.cpp, with the kernel's map_data
// merged in) decoded into per-event typed arrays, and the names of its lanes, groups and rows.
// Pure: the page shows a model through launch.js.
/* global b64, col, times, lowerBoundPairs */
/* exported hue, materialise, laneNameOf, groupNameOf, rowLabelOf, ctaOfText */

// Name i's colour: golden-angle hues, alternating lightness, so neighbours differ.
const hue = i => `hsl(${(i * 137.508) % 360},62%,${i % 2 ? 56 : 66}%)`;

// Rebuilds the per-event typed arrays from the compact columns in one pass over the tracks.
function materialise(d) {
  const S = {n: d.S.n}, I = {n: d.I.n}, ns = S.n, ni = I.n;
  const nameOf = new Map(d.site_names);
  const C = {s0: new Float64Array(d.rows.length), k: new Float64Array(d.rows.length),
             d: new Float64Array(d.rows.length)};
  d.row_clocks.forEach((c, r) => { if (c) [C.s0[r], C.k[r], C.d[r]] = c; });
  S.site = col(d.S.site);
  for (const k of ['row', 'lane', 'name', 'payload']) S[k] = new Int32Array(ns);
  S.flags = new Int32Array(ns);
  S.b_cyc = new Float64Array(ns);
  S.e_cyc = new Float64Array(ns);
  const bd = col(d.S.b_cyc), dur = col(d.S.dur_cyc), sp = col(d.S.payload), ip = col(d.I.payload);
  // export_html.cpp: zigzagged deltas; an f64 column (beyond 32 bits) only in a corrupt trace
  const unzig = sp instanceof Float64Array || ip instanceof Float64Array
    ? z => z % 2 ? -(z + 1) / 2 : z / 2 : z => (z >>> 1) ^ -(z & 1);
  I.site = col(d.I.site);
  for (const k of ['row', 'lane', 'name', 'payload']) I[k] = new Int32Array(ni);
  I.cyc = new Float64Array(ni);
  const id = col(d.I.cyc);
  const SB = S.b_cyc, SE = S.e_cyc, SP = S.payload, IC = I.cyc, IP = I.payload;
  for (const c of d.ctas) {
    for (const [row, lane, , first, count] of c.tracks) {
      S.row.fill(row, first, first + count);
      S.lane.fill(lane, first, first + count);
      let b = 0, p = 0;
      for (let i = first, end = first + count; i < end; i++) {
        b += bd[i]; p += unzig(sp[i]);
        SB[i] = b; SE[i] = b + dur[i]; SP[i] = p;
      }
    }
    for (const [row, lane, first, count] of c.itracks) {
      I.row.fill(row, first, first + count);
      I.lane.fill(lane, first, first + count);
      let a = 0, p = 0;
      for (let i = first, end = first + count; i < end; i++) {
        a += id[i]; p += unzig(ip[i]);
        IC[i] = a; IP[i] = p;
      }
    }
  }
  for (const i of col(d.S.incomplete)) S.flags[i] = 1;
  for (let i = 0, site = -1, name = 0; i < ns; i++) {
    if (S.site[i] !== site) { site = S.site[i]; name = nameOf.get(site); }
    S.name[i] = name;
  }
  for (let i = 0, site = -1, name = 0; i < ni; i++) {
    if (I.site[i] !== site) { site = I.site[i]; name = nameOf.get(site); }
    I.name[i] = name;
  }
  S.b_ns = times(d.S.b_ns, S.row, S.b_cyc, C);
  S.e_ns = times(d.S.e_ns, S.row, S.e_cyc, C);
  I.ns = times(d.I.ns, I.row, I.cyc, C);
  const FL = b64(d.flows, Int32Array);
  for (const c of d.ctas) {
    c.s0 = c.tracks.length ? c.tracks[0][3] : 0;
    c.s1 = c.s0 + c.slices;
    c.f0 = lowerBoundPairs(FL, c.s0);
    c.f1 = lowerBoundPairs(FL, c.s1);
    c.dropped = c.rows.reduce((a, r) => a + d.rows[r].dropped, 0);
  }
  return {D: d, S, I, FL, FA: b64(d.flow_at_cyc, Float64Array), // FA: where each arrow lands
          LOC: new Map(d.sites.map(s => [s.id, s.loc])), CTAS: new Map(d.ctas.map(c => [c.cta, c])),
          COLORS: d.names.map((_, i) => hue(i))};
}

// A lane, group or row as the page names it; lanes and groups past the map's lists (a corrupt
// trace) are '?' and '#g'.
const laneNameOf = (D, l) => l < D.lanes.length ? D.lanes[l] : '?';
const groupNameOf = (D, g) => g < D.groups.length ? D.groups[g].name : '#' + g;
const rowLabelOf = (D, R) => R.label || groupNameOf(D, R.group); // "consumer[w3]": a slice's row

// What the CTA picker takes: a linear index "5000", or "x,y" / "x,y,z" inside the launch's grid.
// {n: the linear index (x + y*gx + z*gx*gy)} or {why: what is wrong with the text}.
function ctaOfText(text, grid) {
  const t = String(text).trim(), xyz = /^(\d+)\s*,\s*(\d+)(?:\s*,\s*(\d+))?$/.exec(t);
  if (xyz) {
    const [x, y, z] = [xyz[1], xyz[2], xyz[3] || '0'].map(Number), g = grid;
    if (x < g[0] && y < g[1] && z < g[2]) return {n: x + y * g[0] + z * g[0] * g[1]};
    return {why: `(${x},${y},${z}) is outside the grid (${g.join(',')})`};
  }
  if (/^\d+$/.test(t)) return {n: Number(t)};
  return {why: `'${t}' is not a CTA index or x,y,z`};
}
