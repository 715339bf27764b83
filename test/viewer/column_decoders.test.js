// The page's column decoders (runtime/viewer/js/columns.js, launch_model.js) turn what
// export_html.cpp writes back into the decoder's numbers.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const {loadModules} = require('./load_modules');
const {TYPES, base64, column, zigzag} = require('./columns');

const V = loadModules('columns.js', 'search.js', 'launch_model.js');

test('a column is the typed array of its base64 little-endian bytes', () => {
  const values = {u8: [0, 7, 255], u16: [1, 65535], u32: [0, 4294967295], i32: [-2147483648, -1, 70000],
                  f64: [0.5, -1e300, 3]};
  for (const [type, v] of Object.entries(values)) {
    const got = V.col(column(type, v));
    assert.ok(got instanceof TYPES[type], `${type}: a ${TYPES[type].name}`);
    assert.deepEqual(Array.from(got), v, type);
  }
});

test('base64 decodes the same with and without Uint8Array.fromBase64', () => {
  const bytes = Int32Array.from([1, -2, 3, 1 << 30]);
  const without = V.b64(base64(bytes), Int32Array);
  const had = Object.getOwnPropertyDescriptor(Uint8Array, 'fromBase64');
  Uint8Array.fromBase64 = s => new Uint8Array(Buffer.from(s, 'base64'));
  try {
    assert.deepEqual(Array.from(V.b64(base64(bytes), Int32Array)), Array.from(without));
  } finally {
    if (had) Object.defineProperty(Uint8Array, 'fromBase64', had); else delete Uint8Array.fromBase64;
  }
  assert.deepEqual(Array.from(without), [1, -2, 3, 1 << 30]);
});

test('times: ns from the row clock (s0 + (cyc + d) * k), with the listed exceptions', () => {
  const C = {s0: Float64Array.of(1000, 0), k: Float64Array.of(0.5, 2), d: Float64Array.of(10, 0)};
  const row = Int32Array.of(0, 1, 0), cyc = Float64Array.of(100, 3, 0);
  const spec = {x: column('i32', [2]), v: column('f64', [42.25])};
  assert.deepEqual(Array.from(V.times(spec, row, cyc, C)), [1055, 6, 42.25]);
  assert.deepEqual(Array.from(V.times(column('f64', [1, 2, 3]), row, cyc, C)), [1, 2, 3]);
});

// One CTA, one row: slices 'load' [100, 150) payload 5 and 'mma' [250, 280) payload -3
// (incomplete), an instant 'tick' at 120 payload -1, a flow from the first slice to the second.
function smallLaunch(payloadType = 'i32') {
  return {
    names: ['load', 'mma', 'tick'], site_names: [[7, 0], [8, 1], [9, 2]],
    sites: [{id: 7, loc: 'k.cu:10'}, {id: 8, loc: 'k.cu:11'}, {id: 9, loc: 'k.cu:12'}],
    rows: [{cta: 3, sm: 1, group: 0, dropped: 2}], row_clocks: [[1000, 0.5, 10]],
    ctas: [{cta: 3, sm: 1, rows: [0], slices: 2, instants: 1,
            tracks: [[0, 0, 0, 0, 2]], itracks: [[0, 0, 0, 1]]}],
    S: {n: 2, site: column('u8', [7, 8]), b_cyc: column('u32', [100, 150]),
        dur_cyc: column('u32', [50, 30]), payload: column(payloadType, [zigzag(5), zigzag(-8)]),
        incomplete: column('u32', [1]),
        b_ns: {x: column('i32', [1]), v: column('f64', [9999])}, e_ns: column('f64', [1, 2])},
    I: {n: 1, site: column('u8', [9]), cyc: column('u32', [120]),
        payload: column(payloadType, [zigzag(-1)]), ns: {x: column('i32', []), v: column('f64', [])}},
    flows: base64(Int32Array.of(0, 1)), flow_at_cyc: base64(Float64Array.of(260)),
  };
}

test('materialise undoes the begin and payload deltas per track', () => {
  const {S, I} = V.materialise(smallLaunch());
  assert.deepEqual(Array.from(S.b_cyc), [100, 250]);
  assert.deepEqual(Array.from(S.e_cyc), [150, 280]);
  assert.deepEqual(Array.from(S.payload), [5, -3]);
  assert.deepEqual(Array.from(I.cyc), [120]);
  assert.deepEqual(Array.from(I.payload), [-1]);
});

test('materialise names each event by its site and places it on its track\'s row and lane', () => {
  const {S, I} = V.materialise(smallLaunch());
  assert.deepEqual(Array.from(S.name), [0, 1]);
  assert.deepEqual(Array.from(I.name), [2]);
  assert.deepEqual(Array.from(S.row), [0, 0]);
  assert.deepEqual(Array.from(S.flags), [0, 1], 'the incomplete slice has flag bit 0');
});

test('materialise computes ns from the row clock where the export listed no exception', () => {
  const {S, I} = V.materialise(smallLaunch());
  assert.deepEqual(Array.from(S.b_ns), [1000 + (100 + 10) * 0.5, 9999]);
  assert.deepEqual(Array.from(S.e_ns), [1, 2]);
  assert.deepEqual(Array.from(I.ns), [1000 + (120 + 10) * 0.5]);
});

test('materialise gives each CTA its slice range, flow range and dropped count', () => {
  const m = V.materialise(smallLaunch());
  const c = m.CTAS.get(3);
  assert.deepEqual([c.s0, c.s1, c.f0, c.f1, c.dropped], [0, 2, 0, 1, 2]);
  assert.deepEqual(Array.from(m.FA), [260]);
  assert.equal(m.LOC.get(8), 'k.cu:11');
});

test('payload deltas past 32 bits (an f64 column) decode exactly', () => {
  const d = smallLaunch('f64');
  const big = 2 ** 33; // its zigzag, 2^34, has no 32-bit form
  d.S.payload = column('f64', [zigzag(big), zigzag(5 - big)]);
  const {S} = V.materialise(d);
  // The running payload is exact: the second slice's is 5 (the first's, 2^33, does not fit the
  // Int32Array the page keeps and reads 0, as it did when the page was one string).
  assert.deepEqual(Array.from(S.payload), [0, 5]);
});

test('the CTA picker takes an index or x,y[,z] inside the grid', () => {
  assert.deepEqual(V.ctaOfText(' 5000 ', [100, 100, 1]), {n: 5000});
  assert.deepEqual(V.ctaOfText('0,50,0', [100, 100, 1]), {n: 5000});
  assert.deepEqual(V.ctaOfText('3, 2', [4, 4, 2]), {n: 11});
  assert.deepEqual(V.ctaOfText('1,1,1', [4, 4, 2]), {n: 21});
  assert.deepEqual(V.ctaOfText('4,0,0', [4, 4, 2]), {why: '(4,0,0) is outside the grid (4,4,2)'});
  assert.deepEqual(V.ctaOfText('cta 3', [4, 4, 2]), {why: '\'cta 3\' is not a CTA index or x,y,z'});
});

test('binary searches find the first index at or past a value', () => {
  const A = Float64Array.of(1, 3, 3, 7);
  assert.deepEqual([0, 1, 3, 4, 8].map(v => V.lowerBound(A, 0, A.length, v)), [0, 0, 1, 3, 4]);
  assert.equal(V.lowerBound(A, 2, 4, 1), 2, 'within [lo, hi)');
  assert.equal(V.lowerBoundPairs(Int32Array.of(0, 5, 2, 6, 2, 7, 9, 1), 2), 1);
  const B = Float64Array.of(0, 10, 20), E = Float64Array.of(5, 15, 25);
  assert.equal(V.sliceNear(0, 3, B, E, 12, 0), 1);
  assert.equal(V.sliceNear(0, 3, B, E, 7, 1), -1, 'in the gap between two slices');
  assert.equal(V.sliceNear(0, 3, B, E, 7, 2), 0, 'within tolerance of the first');
});
