// The --explain=html report's script (docs/explain.md): j/n and k/p step through the changed
// regions, e unfolds every folded run of unchanged lines, a click on a fold unfolds it; the
// hidden #explain-check gets the page's own counts, which test/explain/check_html.sh reads.
(function () {
  const regions = [].slice.call(document.querySelectorAll('section.region'));
  const links = [].slice.call(document.querySelectorAll('nav a[data-region]'));
  let current = -1;
  function select(i, scroll) {
    if (!regions.length) return;
    current = (i + regions.length) % regions.length;
    regions.forEach(function (r, k) { r.classList.toggle('current', k === current); });
    links.forEach(function (a) { a.classList.toggle('current', +a.dataset.region === current); });
    if (scroll) regions[current].scrollIntoView({block: 'start'});
  }
  function unfold(row) {
    const id = row.dataset.fold;
    document.querySelectorAll('tr.folded[data-in="' + id + '"]').forEach(function (r) {
      r.classList.remove('folded');
    });
    row.parentNode.removeChild(row);
  }
  document.querySelectorAll('tr.fold').forEach(function (row) {
    row.addEventListener('click', function () { unfold(row); });
  });
  links.forEach(function (a) {
    a.addEventListener('click', function () { select(+a.dataset.region, false); });
  });
  document.addEventListener('keydown', function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === 'j' || e.key === 'n') {
      select(current + 1, true);
      e.preventDefault();
    } else if (e.key === 'k' || e.key === 'p') {
      select(current < 0 ? -1 : current - 1, true);
      e.preventDefault();
    } else if (e.key === 'e') {
      document.querySelectorAll('tr.fold').forEach(unfold);
    }
  });
  const byKind = {};
  regions.forEach(function (r) { byKind[r.dataset.kind] = (byKind[r.dataset.kind] || 0) + 1; });
  const check = document.getElementById('explain-check');
  check.textContent = 'stages=' + document.querySelectorAll('nav li.stage').length +
    ' regions=' + regions.length + ' sidebar_regions=' + links.length +
    ' kernels=' + (byKind['kernel'] || 0) + ' launch_sites=' + (byKind['launch site'] || 0) +
    ' functions=' + (byKind['function'] || 0) +
    ' folds=' + document.querySelectorAll('tr.fold').length;
  const m = /^#region-(\d+)$/.exec(location.hash);
  if (regions.length) select(m ? +m[1] : 0, false);
})();
