// The filter's language (docs/viewer.md, "Filter"): space-separated terms that must all hold; a
// bare word is a name term. name/lane/group: substring in any case ("=x": exactly x);
// payload/cta/sm: numbers, ranges a-b, lists a,b. Pure: filter.js applies it to the page.
/* global laneNameOf, groupNameOf, rowLabelOf */
/* exported parseQuery, matchEvents */

// {terms: [{key, test(text)} or {key, ranges: [[a, b]...]}]}, or {error} naming the bad term.
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

// Which events of a model (materialise) satisfy every term: M, prefix sums over the slices
// (M[i+1] - M[i]: slice i matches), so a paint counts the matches of a merged pixel column in
// O(1); IM, per instant 1 or 0. Each term is evaluated once per name, row and lane, not per event.
function matchEvents(terms, {D, S, I}) {
  const of = k => terms.filter(t => t.key === k);
  const inRanges = (v, rs) => rs.some(([a, b]) => v >= a && v <= b);
  const texts = (k, s) => of(k).every(t => t.test(s));
  const nums = (k, v) => of(k).every(t => inRanges(v, t.ranges));
  const nameOk = Uint8Array.from(D.names, n => texts('name', n));
  const rowOk = Uint8Array.from(D.rows, R => nums('cta', R.cta) && nums('sm', R.sm) &&
    of('group').every(t => t.test(groupNameOf(D, R.group)) || t.test(rowLabelOf(D, R))));
  const nl = D.lanes.length;
  const laneArr = Uint8Array.from({length: nl + 1}, (_, l) => texts('lane', laneNameOf(D, l)));
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
  return {M, IM};
}
