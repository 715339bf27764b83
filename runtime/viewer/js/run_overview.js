// The run overview (docs/viewer.md, "The HTML of a whole run"), on a run's page only: one row per
// (process, device, stream), each recorded launch a span on the run axis; a click, or Enter on the
// hovered launch, opens it in the launch views (#launch=I, I = its place in RunTrace::launches),
// parsed and laid out then, not before: the overview paints from its own small data element.
/* global $, b64, COUNTERS, ctx, D, drawSlices, el, fmtNs, GUTTER, hue, infoItem, legendItem,
          lowerBound, materialise, paint, route, RUN:writable, show, showProblems, sliceNear, stats,
          useLaunch, view, X */
RUN = (function () {
  let R = null, L = null, overview = null, shown = -2; // shown: launch on screen, -1 the overview
  const models = new Map(); // the few launches materialised last, oldest first
  const KEEP = 4, ROW_H = 22, NO_DETAIL = 2, UNREAD = 4; // L.flags bits; 1: in a graph

  function load() {
    R = JSON.parse($('cutrace-data').textContent);
    L = {n: R.L.n};
    for (const k of ['stream', 'map', 'flags', 'kernel']) L[k] = b64(R.L[k], Int32Array);
    for (const k of ['launch_index', 'grid', 'block']) L[k] = b64(R.L[k], Uint32Array);
    for (const k of ['sequence', 'b_ns', 'e_ns', 'q_ns']) L[k] = b64(R.L[k], Float64Array);
    COUNTERS.push('launchesDrawn', 'launchesVisible');
    Object.assign(stats, {launch: null, launches: L.n, launchesWithDetail: R.detail.count,
                          launchesLeftOut: R.detail.left_out, launchLoadMs: null,
                          launchCtas: null, launchesDrawn: 0, launchesVisible: 0});
    overview = overviewView();
  }

  const mb = bytes => (bytes / 1048576).toFixed(bytes < 10485760 ? 1 : 0) + ' MB';
  const streamLabel = s => R.streams[s].label;
  function leftOutHint(i) {
    const why = L.flags[i] & UNREAD ? 'its records were not read (reader buffer budget)'
                                    : `HTML size bound (${mb(R.detail.max_bytes)})`;
    return `detail left out: ${why}; render it with trace-view <its .ctrace> --launch ${L.sequence[i]}`;
  }
  function describeLaunch(i) {
    const g = k => `(${L[k][3 * i]},${L[k][3 * i + 1]},${L[k][3 * i + 2]})`;
    const q = L.q_ns[i], b = L.b_ns[i];
    return [R.kernels[L.kernel[i]],
      `launch    ${L.launch_index[i]} of this kernel  \u00b7  #${i} in the run  \u00b7  sequence ${L.sequence[i]}`,
      `grid      ${g('grid')}  \u00b7  block ${g('block')}`,
      `start     ${fmtNs(b)}  \u00b7  duration ${fmtNs(L.e_ns[i] - b)}`,
      `in graph  ${L.flags[i] & 1 ? 'yes' : 'no'}`,
      `gaps      ${R.gaps[i] || 'none: complete'}`,
      isNaN(q) ? 'enqueue   not known' : `enqueue   ${fmtNs(q)}  \u00b7  enqueue \u2192 start ${fmtNs(b - q)}`,
      streamLabel(L.stream[i]),
      L.flags[i] & NO_DETAIL ? leftOutHint(i) : 'click or Enter: open its CTAs'].join('\n');
  }

  // Per stream, launches on levels where they never overlap, so each level is sorted by begin and
  // by end (drawSlices binary-searches it); positions are the launches in track order.
  function overviewView() {
    const byStream = R.streams.map(() => []);
    for (let i = 0; i < L.n; i++) byStream[L.stream[i]].push(i); // in begin order
    const pos = [], tracks = [];
    let y = 0, lo = Infinity, hi = -Infinity;
    byStream.forEach((launches, s) => {
      const levels = [];
      for (const i of launches) {
        let k = levels.findIndex(l => l.end <= L.b_ns[i]);
        if (k < 0) { k = levels.length; levels.push({end: -Infinity, items: []}); }
        levels[k].end = L.e_ns[i];
        levels[k].items.push(i);
        lo = Math.min(lo, L.b_ns[i], isNaN(L.q_ns[i]) ? Infinity : L.q_ns[i]);
        hi = Math.max(hi, L.e_ns[i]);
      }
      if (!levels.length) levels.push({items: []});
      levels.forEach((l, k) => {
        tracks.push({kind: 'launches', first: pos.length, end: pos.length + l.items.length, y,
                     h: ROW_H, label: k ? '' : streamLabel(s), title: streamLabel(s)});
        pos.push(...l.items);
        y += ROW_H + 2;
      });
    });
    const P = Int32Array.from(pos);
    const spans = {name: Int32Array.from(P, i => L.kernel[i]), flags: Int32Array.from(P, i =>
                     L.flags[i] & NO_DETAIL ? 3 : 0), colors: R.kernels.map((_, k) => hue(k)),
                   names: R.kernels, drawn: 'launchesDrawn', visible: 'launchesVisible'};
    if (!isFinite(lo)) { lo = 0; hi = 1; }
    return {kind: 'run', key: 'run', tracks, height: y, lo, hi: Math.max(hi, lo + 1), P, spans,
            B: Float64Array.from(P, i => L.b_ns[i]), E: Float64Array.from(P, i => L.e_ns[i]),
            fmt: fmtNs, gutter: gutterFor(R.streams.map(s => s.label)), axis: 'run time', unit: 'ns',
            info: `${L.n} launches on ${R.streams.length} streams of ${R.devices.length} GPUs`,
            hint: 'click a launch (or Enter on it) to open its CTAs',
            drawTrack: drawLaunches, hitTrack: hitLaunch};
  }

  // Wide enough for the longest row label (paint() fits ~6 px a character), within reason.
  function gutterFor(labels) {
    const longest = labels.reduce((a, l) => Math.max(a, l.length), 0);
    return Math.max(170, Math.min(longest * 6 + 16, Math.round(window.innerWidth * 0.45)));
  }

  function drawLaunches(t, y) {
    const v = view;
    drawSlices(t.first, t.end, v.B, v.E, y + 1, t.h - 2, true, v.spans);
    // Host enqueue: a tick at the top, joined to the launch's start, where there is room.
    ctx.strokeStyle = 'rgba(31,35,40,0.8)';
    ctx.lineWidth = 1;
    ctx.beginPath();
    let k = lowerBound(v.E, t.first, t.end, v.x0);
    for (let n = 0; k < t.end && v.B[k] <= v.x1 && n < 4000; k++, n++) {
      const i = v.P[k], q = L.q_ns[i];
      if (isNaN(q)) continue;
      const xq = X(q), xb = X(v.B[k]);
      if (xb - xq < 3 || xq < GUTTER) continue;
      ctx.moveTo(xq + 0.5, y); ctx.lineTo(xq + 0.5, y + 7);
      ctx.moveTo(xq + 0.5, y + 3.5); ctx.lineTo(xb, y + 3.5);
    }
    ctx.stroke();
  }

  function hitLaunch(t, at, tol) {
    const k = sliceNear(t.first, t.end, view.B, view.E, at, tol);
    if (k < 0) return null;
    const i = view.P[k];
    return {text: describeLaunch(i), hash: L.flags[i] & NO_DETAIL ? null : 'launch=' + i};
  }

  function processItems(p, n, into) {
    if (R.processes.length > 1)
      infoItem(p.rank >= 0 ? 'rank' : 'process', p.rank >= 0 ? p.rank : n, false, into);
    if (p.local_rank >= 0) infoItem('local rank', p.local_rank, false, into);
    infoItem('program', p.program, false, into);
    infoItem('pid', p.pid, false, into);
    if (p.launches) infoItem('CUTRACE_LAUNCHES', p.launches, false, into);
    if (p.kernels) infoItem('CUTRACE_KERNELS', p.kernels, false, into);
    if (!p.complete) infoItem('run', 'not finished (no END section)', true, into);
    if (p.pool_skipped || p.disk_skipped)
      infoItem('skipped (pool, disk)', `${p.pool_skipped}, ${p.disk_skipped}`, true, into);
  }

  function deviceItem(d, into) {
    infoItem(d.label, d.aligned ? `host clock aligned \u00b1${fmtNs(d.alignment_error_ns)}`
                                : 'host clock not aligned', !d.aligned, into);
  }

  // "0-7, 9": ascending numbers with runs of consecutive ones joined.
  function spans(numbers) {
    const out = [];
    for (const v of [...numbers].sort((a, b) => a - b)) {
      const last = out[out.length - 1];
      if (last && v === last[1] + 1) last[1] = v; else out.push([v, v]);
    }
    return out.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ');
  }

  // Processes of several hosts: one fold per host, named by its ranks, that opens on a click.
  function processInfo() {
    if (R.hosts < 2) { R.processes.forEach((p, n) => processItems(p, n)); return; }
    const byHost = new Map();
    R.processes.forEach((p, n) => byHost.set(p.host, (byHost.get(p.host) || []).concat(n)));
    for (const [host, members] of byHost) {
      const ranked = members.every(n => R.processes[n].rank >= 0);
      const fold = el('details', '', 'host');
      fold.append(el('summary', `${host || '(no host name)'}: ` +
        (ranked ? `ranks ${spans(members.map(n => R.processes[n].rank))}`
                : `${members.length} process${members.length > 1 ? 'es' : ''}`)));
      members.forEach(n => processItems(R.processes[n], n, fold));
      R.devices.filter(d => members.includes(d.process)).forEach(d => deviceItem(d, fold));
      $('info').append(fold);
    }
  }

  function overviewHeader() {
    const names = [...new Set(R.processes.map(p => p.program))];
    document.title = 'cutrace run: ' + names.join(', ');
    $('title').textContent = R.processes.length === 1
      ? `${R.processes[0].program}  \u2014  pid ${R.processes[0].pid}` +
        (R.processes[0].host ? ` on ${R.processes[0].host}` : '')
      : `${R.processes.length} processes: ${names.join(', ')}`;
    $('info').replaceChildren();
    processInfo();
    if (R.hosts > 1)
      infoItem('host clocks', R.host_clock_bound_ns === null ? 'not known to agree'
               : `processes of different hosts within ${fmtNs(R.host_clock_bound_ns)}`,
               R.host_clock_bound_ns === null);
    if (R.hosts < 2) R.devices.forEach(d => deviceItem(d));
    infoItem('launches', L.n);
    infoItem('completeness', R.complete ? 'complete' : R.completeness.trim(), !R.complete);
    infoItem('with detail', R.detail.count);
    const bound = R.detail.left_out - R.detail.unread;
    infoItem('detail left out', !R.detail.left_out ? 0 :
             (bound ? `${bound} (HTML size bound ${mb(R.detail.max_bytes)})` : '') +
             (bound && R.detail.unread ? ' + ' : '') +
             (R.detail.unread ? `${R.detail.unread} whose records were not read` : ''),
             R.detail.left_out > 0);
    showProblems(R.problems.length, R.problems);
    $('legend').replaceChildren();
    R.kernels.forEach((k, n) => {
      const c = R.kernel_counts[n];
      legendItem(hue(n), `${k}: ${c[0]} recorded` + (c[1] >= 0 ? ` \u00b7 ${c[1]} skipped` : ''));
    });
    legendItem('#c6cbd1', 'detail left out', true);
    const tabs = $('tabs'), b = el('button', 'Run overview');
    b.dataset.key = 'run';
    tabs.replaceChildren(b);
    $('ctago').hidden = true;
  }

  function model(i) {
    let m = models.get(i);
    if (m) {
      models.delete(i);
    } else {
      const d = Object.assign({initial_cta: null}, R.maps[L.map[i]],
                              JSON.parse($('cutrace-launch-' + i).textContent));
      m = materialise(d);
      if (models.size >= KEEP) models.delete(models.keys().next().value);
    }
    models.set(i, m);
    return m;
  }

  // #launch=I[&cta=N|&grid]: that launch's views; anything else: the overview. Returns false
  // when the launch views should route the rest of the hash.
  function routeRun(hash) {
    const m = /launch=(\d+)/.exec(hash);
    const i = m ? Number(m[1]) : -1;
    if (m && i >= L.n) stats.errors.push('no launch ' + i + ' in this run');
    const known = i >= 0 && i < L.n;
    // The detail follows the script: the overview first, the launch once the page is parsed.
    const parsing = known && !(L.flags[i] & NO_DETAIL) && !$('cutrace-launch-' + i) &&
                    document.readyState === 'loading';
    if (parsing) document.addEventListener('DOMContentLoaded', () => { route(); paint(); }, {once: true});
    if (!known || L.flags[i] & NO_DETAIL || parsing) {
      if (shown !== -1) overviewHeader();
      shown = -1;
      stats.launch = stats.launchCtas = null;
      show(overview);
      if (known) $('viewinfo').textContent = `launch #${i}: ` + (parsing ? 'loading\u2026' : leftOutHint(i));
      return true;
    }
    if (shown !== i) {
      const t0 = performance.now();
      useLaunch(model(i), `launch=${i}&`);
      stats.launchLoadMs = performance.now() - t0;
      const back = el('button', '\u2190 run');
      back.title = 'back to the run overview (Escape)';
      back.onclick = () => { location.hash = 'run'; };
      $('tabs').prepend(back);
      $('title').textContent += `  \u00b7  launch #${i} of the run, ${streamLabel(L.stream[i])}`;
      infoItem('starts at', fmtNs(L.b_ns[i]) + ' (run axis)');
      shown = i;
    }
    stats.launch = i;
    stats.launchCtas = D.ctas.length;
    return false;
  }

  window.addEventListener('keydown', e => {
    if (e.key === 'Escape' && shown >= 0 && !(e.target instanceof HTMLInputElement))
      location.hash = 'run';
  });
  return {load, route: routeRun};
})();
