// The viewer page around the embedded data (export_html.cpp and export_run_html.cpp put the data
// between kHead and kViewer). Self-contained: no network, no libraries. Drawing reads only typed
// arrays, visits only the visible part of each track (binary search on begin/end), and merges
// slices narrower than a pixel, so a million events stay interactive. One launch's views are
// driven by one data object (useLaunch), so the run overview (export_run_html_page.cpp) shows any
// of its launches with this same code. Test hooks: window.cutraceStats and the hidden
// <pre id="cutrace-stats"> (its JSON), both updated after every paint; #cta=N / #grid select
// the view.
#include "html_page.h"

namespace cutrace::html_page {

const char *const kHead = R"CUTRACE_PAGE(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@TITLE@</title>
<style>
body{margin:0;font:12px system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;background:#fff;
 display:flex;flex-direction:column;height:100vh;overflow:hidden}
header{padding:6px 10px 4px;border-bottom:1px solid #d0d7de}
h1{font-size:14px;margin:0 0 3px;font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.info{display:flex;flex-wrap:wrap}
.info span{margin-right:14px;white-space:nowrap}
.info b{font-weight:600}
.warn{color:#b3261e}
details pre{max-height:120px;overflow:auto;margin:2px 0;background:#f6f8fa;padding:4px}
nav{display:flex;flex-wrap:wrap;gap:3px;padding:4px 10px;border-bottom:1px solid #d0d7de;
 background:#f6f8fa;max-height:58px;overflow-y:auto}
button{font:inherit;padding:1px 8px;border:1px solid #afb8c1;background:#fff;border-radius:3px;cursor:pointer}
nav button.on{background:#0969da;color:#fff;border-color:#0969da}
#tools{display:flex;flex-wrap:wrap;gap:3px 6px;align-items:center;padding:3px 10px;border-bottom:1px solid #d0d7de}
#tools>span,#tools>label{white-space:nowrap}
#tools>label{display:inline-flex;align-items:center;gap:2px}
#tools .hint{color:#656d76;margin-left:8px}
#bands button.on{background:#ddf4ff;border-color:#0969da}
#viewinfo{font-weight:600}
#legend{display:flex;flex-wrap:wrap;gap:2px 12px;padding:3px 10px;border-bottom:1px solid #d0d7de;
 max-height:44px;overflow-y:auto}
#legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px;border-radius:2px}
#scroller{flex:1;overflow-y:auto;overflow-x:hidden;position:relative}
#cv{position:sticky;top:0;display:block;cursor:crosshair}
#query.bad{border-color:#b3261e;background:#fff0ee}
#ctanum.bad{border-color:#b3261e;background:#fff0ee}
#qcount{color:#656d76}
#sel{position:fixed;right:8px;bottom:8px;background:#fff;border:1px solid #afb8c1;border-radius:4px;
 box-shadow:0 2px 8px rgba(0,0,0,.15);max-height:45vh;overflow:auto;z-index:5;padding:4px 8px;
 font:11px ui-monospace,SFMono-Regular,Menlo,monospace}
#sel table{border-collapse:collapse}
#sel td,#sel th{padding:1px 6px;text-align:right;white-space:nowrap}
#sel td:first-child,#sel th:first-child{text-align:left;max-width:260px;overflow:hidden;text-overflow:ellipsis}
#tip{position:fixed;pointer-events:none;background:rgba(20,24,28,.93);color:#fff;padding:6px 9px;
 border-radius:4px;font:12px ui-monospace,SFMono-Regular,Menlo,monospace;white-space:pre;display:none;
 z-index:10;max-width:640px;overflow:hidden}
</style></head><body>
<header><h1 id="title"></h1><div class="info" id="info"></div>
<details id="problems" hidden><summary></summary><pre></pre></details></header>
<nav id="tabs"></nav>
<div id="tools"><button id="zin" title="zoom in">+</button><button id="zout" title="zoom out">&minus;</button>
<button id="zreset" title="show everything">reset</button><span id="ctago" hidden>CTA
<button id="ctaprev" title="previous CTA ([)">&lsaquo;</button><input id="ctanum" type="text"
 placeholder="index or x,y,z" title="type a CTA index or x,y,z, then Enter" style="width:90px"><button
 id="ctanext" title="next CTA (])">&rsaquo;</button></span><input id="query" type="search"
 placeholder="filter (/): consume  name:mma payload:3 cta:0-7 sm:2 group:consumer lane:tma" style="width:250px"
 title="space-separated terms, all must hold (docs/viewer.md)"><label title="hide the slices that do not match"><input
 id="qhide" type="checkbox">hide</label><span id="qcount"></span><span id="viewinfo"></span>
<span id="bands"></span><span class="hint" id="hint"></span></div>
<div id="legend"></div>
<div id="scroller"><canvas id="cv"></canvas><div id="spacer"></div></div>
<div id="tip"></div>
<div id="sel" hidden><div><b id="seltitle"></b> <button id="selclose" title="clear the selection">&times;</button></div>
<table><thead><tr><th>name</th><th>slices</th><th>inside</th><th>full</th><th>instants</th></tr></thead>
<tbody id="selrows"></tbody></table></div>
<pre id="cutrace-stats" hidden></pre>
)CUTRACE_PAGE";

const char *const kViewer = R"CUTRACE_PAGE(<script>
(function () {
'use strict';
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

// ---- data: one launch's draw structures, built from its data object when it is shown ----
function b64(s, Type) {
  let u8;
  if (Uint8Array.fromBase64) {
    u8 = Uint8Array.fromBase64(s);
  } else {
    const bin = atob(s), n = bin.length;
    u8 = new Uint8Array(n);
    for (let i = 0; i < n; i++) u8[i] = bin.charCodeAt(i);
  }
  return new Type(u8.buffer, 0, u8.length / Type.BYTES_PER_ELEMENT);
}
// A launch's column, "TYPE:BASE64" (export_html.cpp says what each column holds).
const COLUMN_TYPES = {u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, i32: Int32Array,
                      f64: Float64Array};
function col(s) {
  const at = s.indexOf(':');
  return b64(s.slice(at + 1), COLUMN_TYPES[s.slice(0, at)]);
}
// ns of each event: a full column, or the row's clock (s0 + (cyc + d) * k, as the decoder
// computes it) with the events where that differs listed.
function times(spec, row, cyc, C) {
  if (typeof spec === 'string') return col(spec);
  const n = cyc.length, out = new Float64Array(n);
  for (let i = 0; i < n; i++) { const r = row[i]; out[i] = C.s0[r] + (cyc[i] + C.d[r]) * C.k[r]; }
  const x = col(spec.x), v = col(spec.v);
  for (let j = 0; j < x.length; j++) out[x[j]] = v[j];
  return out;
}
function lowerBound(A, lo, hi, v) { // first index in [lo, hi) with A[i] >= v
  while (lo < hi) { const m = (lo + hi) >>> 1; if (A[m] < v) lo = m + 1; else hi = m; }
  return lo;
}
function lowerBoundPairs(P, v) { // first flow whose source slice index is >= v
  let lo = 0, hi = P.length >> 1;
  while (lo < hi) { const m = (lo + hi) >>> 1; if (P[2 * m] < v) lo = m + 1; else hi = m; }
  return lo;
}
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
let D = null, S = null, I = null, FL = null, FA = null, LOC = null, CTAS = null, COLORS = null;
let SPANS = null;     // what drawSlices draws from: the launch's slices, or the run's launches
let linkPrefix = '';  // URL hash of the launch's views: '' on its own page, 'launch=N&' in a run

const laneName = l => l < D.lanes.length ? D.lanes[l] : '?';
const groupName = g => g < D.groups.length ? D.groups[g].name : '#' + g;
const rowLabel = R => R.label || groupName(R.group); // "consumer[w3]" for a slice's row
// Started, never closed: cut off after recording (trapped), or empty (no writer ever came).
const neverEnded = R => R.started && !R.closed && R.stored > 0;
const startedEmpty = R => R.started && !R.closed && R.stored === 0;
const ctaLabel = c => `CTA ${c.cta} (${c.xyz.join(',')}) on SM ${c.sm}`;

function fmtNs(v) {
  const a = Math.abs(v);
  if (a >= 1e6) return (v / 1e6).toFixed(3) + ' ms';
  if (a >= 1e3) return (v / 1e3).toFixed(3) + ' \u00b5s';
  return v.toFixed(1) + ' ns';
}
function fmtCyc(v) {
  const a = Math.abs(v);
  if (a >= 1e6) return (v / 1e6).toFixed(2) + 'M cyc';
  if (a >= 1e4) return (v / 1e3).toFixed(1) + 'k cyc';
  return Math.round(v) + ' cyc';
}

// ---- header, tabs, legend (trace strings only ever go through textContent) ----
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}
function infoItem(label, value, warn) {
  const s = el('span', '', warn ? 'warn' : '');
  s.append(label + ' ', el('b', String(value)));
  $('info').append(s);
}
function showProblems(count, shown) {
  const p = $('problems');
  p.hidden = !count;
  if (!count) return;
  p.querySelector('summary').textContent = `${count} decode problems`;
  p.querySelector('summary').className = 'warn';
  p.querySelector('pre').textContent = shown.join('\n') +
    (count > shown.length ? `\n... ${count - shown.length} more` : '');
}
function legendItem(color, text, hatched) {
  const s = el('span'), sw = el('i');
  sw.style.background = color;
  if (hatched) sw.style.backgroundImage = 'repeating-linear-gradient(45deg,transparent 0 2px,#fff 2px 3px)';
  s.append(sw, text);
  $('legend').append(s);
}
function launchHeader() {
  document.title = 'cutrace: ' + D.kernel;
  $('title').textContent = `${D.kernel}  \u2014  ${D.source || ''}`;
  const C = D.counts;
  $('info').replaceChildren();
  infoItem('grid', `(${D.grid.join(',')})`);
  infoItem('block', `(${D.block.join(',')})`);
  infoItem('clock', D.clock);
  infoItem('slices', S.n);
  infoItem('instants', I.n);
  infoItem('flows', C.flows);
  infoItem('dropped', C.dropped, C.dropped > 0);
  infoItem('incomplete', C.incomplete, C.incomplete > 0);
  infoItem('unmatched ends', C.unmatched_ends, C.unmatched_ends > 0);
  if (C.unknown_sites) infoItem('unknown sites', C.unknown_sites, true);
  if (C.invalid_records) infoItem('invalid records', C.invalid_records, true);
  if (C.rows_never_ended) infoItem('rows never ended', C.rows_never_ended, true);
  if (C.backward_flows) infoItem('backward flows skipped', C.backward_flows, true);
  if (C.unpaired_flows) infoItem('unpaired flow ends', C.unpaired_flows, true);
  showProblems(D.problem_count, D.problems);
  const legend = $('legend');
  legend.replaceChildren();
  const order = D.names.map((_, i) => i).sort((a, b) => D.name_counts[b] - D.name_counts[a]);
  for (const i of order.slice(0, 300)) legendItem(COLORS[i], D.names[i] + ` (${D.name_counts[i]})`);
  if (order.length > 300) legend.append(el('span', `\u2026 ${order.length - 300} more names`));
  legend.append(el('span', '\u25a8 hatched: incomplete (never ended)'),
                el('span', '\u25bc instant'), el('span', '\u2192 flow (TRACE_DAG)'));
  const tabs = $('tabs');
  tabs.replaceChildren();
  const grid = el('button', 'Grid (by SM)');
  grid.dataset.key = linkPrefix + 'grid';
  grid.onclick = () => { location.hash = linkPrefix + 'grid'; };
  tabs.append(grid);
  // CTAs are picked by number (the picker below), never one element per CTA: 100k CTAs stay cheap.
  $('ctago').hidden = false;
  $('ctanum').value = '';
  $('ctanum').title = `a CTA index (${D.ctas.length} CTAs with records) or x,y,z in grid ` +
                      `(${D.grid.join(',')}), then Enter; [ and ]: previous and next`;
}

// ---- the CTA picker: "5000" or "x,y,z"; prev/next step through the CTAs that have records ----
function pickCta(text) {
  const t = String(text).trim(), xyz = /^(\d+)\s*,\s*(\d+)(?:\s*,\s*(\d+))?$/.exec(t);
  let n = null, why = null;
  if (xyz) {
    const [x, y, z] = [xyz[1], xyz[2], xyz[3] || '0'].map(Number), g = D.grid;
    if (x < g[0] && y < g[1] && z < g[2]) n = x + y * g[0] + z * g[0] * g[1];
    else why = `(${x},${y},${z}) is outside the grid (${g.join(',')})`;
  } else if (/^\d+$/.test(t)) {
    n = Number(t);
  } else {
    why = `'${t}' is not a CTA index or x,y,z`;
  }
  if (n !== null && !CTAS.has(n)) why = `no CTA ${n} in this trace`;
  stats.pickError = why;
  $('ctanum').classList.toggle('bad', !!why);
  if (why) { $('ctanum').title = why; publish(); return; }
  location.hash = linkPrefix + 'cta=' + n;
}
function stepCta(dir) { // the CTA before or after the one shown (or the one typed)
  const cur = view && view.kind === 'cta' ? view.c.cta : Number($('ctanum').value) || 0, cs = D.ctas;
  let lo = 0, hi = cs.length; // first CTA with index >= cur
  while (lo < hi) { const m = (lo + hi) >>> 1; if (cs[m].cta < cur) lo = m + 1; else hi = m; }
  const k = dir > 0 ? (lo < cs.length && cs[lo].cta === cur ? lo + 1 : lo) : lo - 1;
  if (k >= 0 && k < cs.length) location.hash = linkPrefix + 'cta=' + cs[k].cta;
}
$('ctanum').addEventListener('keydown', e => { if (e.key === 'Enter') pickCta(e.target.value); });
$('ctanum').addEventListener('change', e => pickCta(e.target.value));
$('ctaprev').onclick = () => stepCta(-1);
$('ctanext').onclick = () => stepCta(1);

// Makes `m` (from materialise) the launch that the CTA and grid views show.
function useLaunch(m, prefix) {
  ({D, S, I, FL, FA, LOC, CTAS, COLORS} = m);
  SPANS = {name: S.name, flags: S.flags, colors: COLORS, names: D.names, drawn: 'slicesDrawn',
           visible: 'slicesVisible'};
  linkPrefix = prefix;
  stats.totalSlices = S.n;
  stats.totalInstants = I.n;
  launchHeader();
  applyFilter();
}

// ---- the filter (docs/viewer.md, "Filter"): space-separated terms that must all hold; a bare
// word is a name term. name/lane/group: substring in any case ("=x": exactly x); payload/cta/sm:
// numbers, ranges a-b, lists a,b. Matching is computed once per query, as prefix sums over the
// slices (M[i+1] - M[i]: slice i matches), so a paint counts the matches of a merged pixel
// column in O(1).
const FILTER = {q: '', hide: false, M: null, IM: null};
function parseQuery(q) {
  const terms = [];
  for (const tok of q.trim().split(/\s+/)) {
    if (!tok) continue;
    const m = /^(name|lane|group|payload|cta|sm):(.*)$/i.exec(tok);
    const key = m ? m[1].toLowerCase() : 'name', val = m ? m[2] : tok;
    if (key === 'payload' || key === 'cta' || key === 'sm') {
      const ranges = [];
      for (const part of val.split(',')) {
        const r = /^(-?\d+)(?:-(-?\d+))?$/.exec(part);
        if (!r) return {error: `${key}: '${part}' is not a number, a range a-b or a list a,b`};
        ranges.push([Number(r[1]), Number(r[2] === undefined ? r[1] : r[2])]);
      }
      terms.push({key, ranges});
    } else {
      if (!val) return {error: `${key}: nothing to match`};
      const exact = val[0] === '=', text = (exact ? val.slice(1) : val).toLowerCase();
      terms.push({key, test: s => exact ? s.toLowerCase() === text : s.toLowerCase().includes(text)});
    }
  }
  return {terms};
}
function applyFilter() {
  const t0 = performance.now();
  FILTER.M = FILTER.IM = null;
  const parsed = parseQuery(FILTER.q);
  stats.filter = FILTER.q.trim() || null;
  stats.filterHide = FILTER.hide;
  stats.filterError = parsed.error || null;
  $('query').classList.toggle('bad', !!parsed.error);
  $('query').title = parsed.error || 'space-separated terms, all must hold (docs/viewer.md)';
  if (!parsed.error && parsed.terms.length) {
    const of = k => parsed.terms.filter(t => t.key === k);
    const inRanges = (v, rs) => rs.some(([a, b]) => v >= a && v <= b);
    const texts = (k, s) => of(k).every(t => t.test(s));
    const nums = (k, v) => of(k).every(t => inRanges(v, t.ranges));
    const nameOk = Uint8Array.from(D.names, n => texts('name', n));
    const rowOk = Uint8Array.from(D.rows, R => nums('cta', R.cta) && nums('sm', R.sm) &&
      of('group').every(t => t.test(groupName(R.group)) || t.test(rowLabel(R))));
    const nl = D.lanes.length;
    const laneArr = Uint8Array.from({length: nl + 1}, (_, l) => texts('lane', laneName(l)));
    const laneOk = l => laneArr[l < nl ? l : nl]; // lanes past the map's list are all '?'
    const pay = of('payload').map(t => t.ranges);
    const payloadOk = pay.length ? (p => pay.every(rs => inRanges(p, rs))) : null;
    const M = new Int32Array(S.n + 1), IM = new Uint8Array(I.n);
    for (let i = 0; i < S.n; i++)
      M[i + 1] = M[i] + (nameOk[S.name[i]] && rowOk[S.row[i]] && laneOk(S.lane[i]) &&
                         (!payloadOk || payloadOk(S.payload[i])) ? 1 : 0);
    for (let i = 0; i < I.n; i++)
      IM[i] = nameOk[I.name[i]] && rowOk[I.row[i]] && laneOk(I.lane[i]) &&
              (!payloadOk || payloadOk(I.payload[i])) ? 1 : 0;
    FILTER.M = M;
    FILTER.IM = IM;
  }
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
// Sets (or with null removes) KEY=VALUE in the URL hash without a hashchange (no re-route).
function setHashParam(key, value) {
  const parts = location.hash.slice(1).split('&').filter(p => p && !p.startsWith(key + '='));
  if (value !== null) parts.push(key + '=' + value);
  history.replaceState(null, '', '#' + parts.join('&'));
}

// ---- views: a list of tracks, each with a y position, and an x range ----
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

// ---- drawing ----
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
function fmtDur(ns) { // 3 significant digits: 523 ns, 2.35 µs, 12.4 ms
  const a = Math.abs(ns);
  const [v, u] = a >= 1e6 ? [ns / 1e6, ' ms'] : a >= 1e3 ? [ns / 1e3, ' \u00b5s'] : [ns, ' ns'];
  return (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2)) + u;
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

function niceStep(raw) {
  const p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
  return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
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

// ---- navigation ----
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

// ---- interaction ----
const tip = $('tip');
function trackAt(cy) {
  const ts = view.tracks;
  let lo = 0, hi = ts.length;
  while (lo < hi) { const m = (lo + hi) >>> 1; if (ts[m].y + ts[m].h <= cy) lo = m + 1; else hi = m; }
  return lo < ts.length && ts[lo].y <= cy ? ts[lo] : null;
}
function sliceNear(first, end, B, E, t, tol) {
  let k = lowerBound(B, first, end, t + tol) - 1;
  for (let n = 0; k >= first && n < 3; k--, n++) if (E[k] >= t - tol) return k;
  return -1;
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
  return [D.names[S.name[i]] + (S.flags[i] & 1 ? '   [incomplete: never ended]' : ''),
    `payload   ${S.payload[i]}`,
    `start     ${fmtCyc(S.b_cyc[i])} (CTA)  \u00b7  ${fmtNs(S.b_ns[i])} (global)`,
    `duration  ${Math.round(S.e_cyc[i] - S.b_cyc[i])} cyc  \u00b7  ${fmtNs(S.e_ns[i] - S.b_ns[i])}`,
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

// ---- range selection (docs/analysis.md, "Statistics of a time window"): per name, the slices
// with begin <= E and end >= B, their time inside [B, E] and their full time, and the instants
// inside it; on the view's axis: the CTA's cycles (trace-view analyze --window B:E --cta N), or
// global ns in the grid (the whole launch). Shift+drag, or #...&sel=B-E.
let SEL = null; // {key: the view's, b, e, names: [{name, count, clipped, full, instants}]}
function windowStats(b, e) {
  const c = view.kind === 'cta' ? view.c : null;
  const B = c ? S.b_cyc : S.b_ns, E = c ? S.e_cyc : S.e_ns, A = c ? I.cyc : I.ns;
  const s0 = c ? c.s0 : 0, s1 = c ? c.s1 : S.n;
  const i0 = c ? ctaFirstInstant(c) : 0, i1 = c ? i0 + c.instants : I.n;
  const per = new Map();
  const entry = n => {
    let x = per.get(n);
    if (!x) per.set(n, x = {name: D.names[n], count: 0, clipped: 0, full: 0, instants: 0});
    return x;
  };
  for (let i = s0; i < s1; i++) {
    if (B[i] > e || E[i] < b) continue;
    const x = entry(S.name[i]);
    x.count++;
    x.clipped += Math.max(0, Math.min(E[i], e) - Math.max(B[i], b));
    x.full += E[i] - B[i];
  }
  for (let i = i0; i < i1; i++) if (A[i] >= b && A[i] <= e) entry(I.name[i]).instants++;
  return [...per.values()].sort((p, q) => q.clipped - p.clipped || (p.name < q.name ? -1 : 1));
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
)CUTRACE_PAGE";

const char *const kEnd = R"CUTRACE_PAGE(
try {
  if (RUN) {
    RUN.load();
  } else {
    useLaunch(materialise(JSON.parse($('cutrace-data').textContent)), '');
  }
  stats.loadMs = performance.now() - T0;
  route();
  paint(); // synchronously, so a headless --dump-dom sees the first paint's stats
} catch (err) {
  stats.errors.push(String(err && err.stack || err));
  publish();
  throw err;
}
})();
</script>
)CUTRACE_PAGE";

const char *const kClose = "</body></html>\n";

} // namespace cutrace::html_page
