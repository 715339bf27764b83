// The header, tabs and legend of a launch (the run overview writes its own with the same items).
// Trace strings only ever go through textContent: a name can never become markup.
/* global $, COLORS, D, I, linkPrefix, S */
/* exported el, infoItem, showProblems, legendItem, launchHeader */
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}
function infoItem(label, value, warn, into) {
  const s = el('span', '', warn ? 'warn' : '');
  s.append(label + ' ', el('b', String(value)));
  (into || $('info')).append(s);
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
