// Numbers as the page prints them: times in ns and cycles, durations, ruler steps. Pure.
/* exported fmtNs, fmtCyc, fmtDur, niceStep */
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
function fmtDur(ns) { // 3 significant digits: 523 ns, 2.35 µs, 12.4 ms
  const a = Math.abs(ns);
  const [v, u] = a >= 1e6 ? [ns / 1e6, ' ms'] : a >= 1e3 ? [ns / 1e3, ' \u00b5s'] : [ns, ' ns'];
  return (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2)) + u;
}
function niceStep(raw) {
  const p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
  return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}
