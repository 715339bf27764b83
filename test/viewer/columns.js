// Columns as export_html.cpp writes them, for the tests: "TYPE:BASE64" of little-endian bytes.
'use strict';
const TYPES = {u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, i32: Int32Array,
               f64: Float64Array};

const base64 = typed => Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength)
  .toString('base64');
const column = (type, values) => `${type}:${base64(TYPES[type].from(values))}`;
// The payload deltas as export_html.cpp codes them: +n -> 2n, -n -> 2n-1.
const zigzag = v => v >= 0 ? 2 * v : -2 * v - 1;

module.exports = {TYPES, base64, column, zigzag};
