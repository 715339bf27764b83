// Column decoders: a launch's numeric columns travel as base64 of little-endian bytes
// (export_html.cpp says what each holds); here they become typed arrays again. Pure.
/* exported b64, col, times */
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
