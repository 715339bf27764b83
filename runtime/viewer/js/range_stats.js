// Statistics of a time range (docs/analysis.md, "Statistics of a time window"): per name, the
// slices with begin <= e and end >= b, their time inside [b, e] and their full time, and the
// instants inside [b, e]; what trace-view analyze --window B:E answers. Pure.
/* exported rangeStats */

// slices: {B, E, name, first, end}: begin, end and name-index columns, and the part of them to
// count, [first, end); instants: {A, name, first, end} likewise; names: the launch's names.
// Returns [{name, count, clipped, full, instants}], most time inside first, then by name.
function rangeStats(names, slices, instants, b, e) {
  const per = new Map();
  const entry = n => {
    let x = per.get(n);
    if (!x) per.set(n, x = {name: names[n], count: 0, clipped: 0, full: 0, instants: 0});
    return x;
  };
  const {B, E} = slices;
  for (let i = slices.first; i < slices.end; i++) {
    if (B[i] > e || E[i] < b) continue;
    const x = entry(slices.name[i]);
    x.count++;
    x.clipped += Math.max(0, Math.min(E[i], e) - Math.max(B[i], b));
    x.full += E[i] - B[i];
  }
  const A = instants.A;
  for (let i = instants.first; i < instants.end; i++)
    if (A[i] >= b && A[i] <= e) entry(instants.name[i]).instants++;
  return [...per.values()].sort((p, q) => q.clipped - p.clipped || (p.name < q.name ? -1 : 1));
}
