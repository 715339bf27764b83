// The CTA picker: "5000" or "x,y,z" (ctaOfText), then Enter; prev/next ([ and ]) step through the
// CTAs that have records. CTAs are picked by number, never one element per CTA: 100k CTAs stay
// cheap.
/* global $, ctaOfText, CTAS, D, linkPrefix, publish, stats, view */
/* exported pickCta, stepCta */
function pickCta(text) {
  const picked = ctaOfText(text, D.grid);
  let why = picked.why || null;
  const n = why ? null : picked.n;
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
