// Statistics of a time range (docs/analysis.md, "Statistics of a time window";
// runtime/viewer/js/range_stats.js): what the page's range selection lists per name.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const {loadModules} = require('./load_modules');

const {rangeStats} = loadModules('range_stats.js');

const names = ['load', 'mma', 'sync'];
// Slices [B, E) on one axis: load 0-10, mma 5-25, mma 30-40, load 40-50; instants: sync at 10,
// 20 and 45.
const slices = (first = 0, end = 4) => ({B: Float64Array.of(0, 5, 30, 40),
  E: Float64Array.of(10, 25, 40, 50), name: Int32Array.of(0, 1, 1, 0), first, end});
const instants = (first = 0, end = 3) => ({A: Float64Array.of(10, 20, 45),
  name: Int32Array.of(2, 2, 2), first, end});
const byName = rows => Object.fromEntries(rows.map(r => [r.name, r]));

test('a slice that overlaps the range counts with its time inside and its full time', () => {
  const r = byName(rangeStats(names, slices(), instants(), 8, 20));
  assert.deepEqual(r.load, {name: 'load', count: 1, clipped: 2, full: 10, instants: 0});
  assert.deepEqual(r.mma, {name: 'mma', count: 1, clipped: 12, full: 20, instants: 0});
});

test('a slice that only touches the range counts, with nothing inside', () => {
  const r = byName(rangeStats(names, slices(), instants(), 25, 30));
  assert.equal(r.mma.count, 2);
  assert.equal(r.mma.clipped, 0);
  assert.equal(r.mma.full, 30);
});

test('slices outside the range are not counted', () => {
  assert.equal(byName(rangeStats(names, slices(), instants(), 26, 29)).mma, undefined);
});

test('instants count inside the range, both ends included', () => {
  const r = byName(rangeStats(names, slices(), instants(), 10, 20));
  assert.deepEqual(r.sync, {name: 'sync', count: 0, clipped: 0, full: 0, instants: 2});
});

test('only the events of the given part are counted (a CTA\'s)', () => {
  const r = byName(rangeStats(names, slices(2, 4), instants(2, 3), 0, 100));
  assert.deepEqual([r.load.count, r.mma.count, r.sync.instants], [1, 1, 1]);
  assert.equal(r.load.full, 10);
});

test('names come most time inside first, then by name', () => {
  assert.deepEqual(rangeStats(names, slices(), instants(), 0, 100).map(r => r.name),
                   ['mma', 'load', 'sync']);
  // load and mma both have 5 inside [5, 10]: by name.
  assert.deepEqual(rangeStats(names, slices(), instants(), 5, 10).map(r => r.name),
                   ['load', 'mma', 'sync']);
});

test('an empty range is a range of one point', () => {
  const r = byName(rangeStats(names, slices(), instants(), 45, 45));
  assert.deepEqual([r.load.count, r.load.clipped, r.sync.instants], [1, 0, 1]);
});
