// Binary searches over sorted columns: what lets drawing and hovering visit only the visible part
// of a track. Pure.
/* exported lowerBound, lowerBoundPairs, sliceNear */
function lowerBound(A, lo, hi, v) { // first index in [lo, hi) with A[i] >= v
  while (lo < hi) { const m = (lo + hi) >>> 1; if (A[m] < v) lo = m + 1; else hi = m; }
  return lo;
}
function lowerBoundPairs(P, v) { // first flow whose source slice index is >= v
  let lo = 0, hi = P.length >> 1;
  while (lo < hi) { const m = (lo + hi) >>> 1; if (P[2 * m] < v) lo = m + 1; else hi = m; }
  return lo;
}
// The slice of [first, end) (begin-sorted, non-overlapping) within tol of t, or -1.
function sliceNear(first, end, B, E, t, tol) {
  let k = lowerBound(B, first, end, t + tol) - 1;
  for (let n = 0; k >= first && n < 3; k--, n++) if (E[k] >= t - tol) return k;
  return -1;
}
