// The filter's language (docs/viewer.md, "Filter"; runtime/viewer/js/filter_query.js): what a
// query means, what it refuses, and which events it keeps.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const {loadModules} = require('./load_modules');

const V = loadModules('launch_model.js', 'filter_query.js');

const terms = q => {
  const parsed = V.parseQuery(q);
  assert.equal(parsed.error, undefined, `'${q}' parses`);
  return parsed.terms;
};
const keeps = (q, text) => terms(q)[0].test(text);

test('a bare word is a name term, matched as a substring in any case', () => {
  const t = terms('MMA');
  assert.equal(t.length, 1);
  assert.equal(t[0].key, 'name');
  assert.ok(keeps('MMA', 'tile_mma_k'));
  assert.ok(!keeps('MMA', 'load'));
});

test('name, lane and group take =text for an exact match, in any case', () => {
  assert.ok(keeps('name:=mma', 'MMA'));
  assert.ok(!keeps('name:=mma', 'mma2'));
  assert.ok(keeps('lane:=TMA', 'tma'));
  assert.ok(keeps('group:cons', 'consumer[w3]'));
});

test('keys are read in any case', () => {
  assert.equal(terms('NAME:x Lane:y GROUP:z')[1].key, 'lane');
});

test('payload, cta and sm take numbers, ranges a-b and lists a,b', () => {
  assert.deepEqual(terms('payload:3')[0].ranges, [[3, 3]]);
  assert.deepEqual(terms('cta:0-7')[0].ranges, [[0, 7]]);
  assert.deepEqual(terms('sm:1,4-5')[0].ranges, [[1, 1], [4, 5]]);
  assert.deepEqual(terms('payload:-5--2')[0].ranges, [[-5, -2]]);
});

test('an empty query has no terms; spaces only separate them', () => {
  assert.deepEqual(terms('   '), []);
  assert.equal(terms('  a   b ').length, 2);
});

test('a term that is not a number where one is wanted is refused, named', () => {
  assert.deepEqual(V.parseQuery('mma payload:x'),
                   {error: 'payload: \'x\' is not a number, a range a-b or a list a,b'});
  assert.deepEqual(V.parseQuery('cta:1,'),
                   {error: 'cta: \'\' is not a number, a range a-b or a list a,b'});
  assert.deepEqual(V.parseQuery('sm:1-2-3'),
                   {error: 'sm: \'1-2-3\' is not a number, a range a-b or a list a,b'});
});

test('a text term with nothing to match is refused', () => {
  assert.deepEqual(V.parseQuery('lane:'), {error: 'lane: nothing to match'});
  assert.deepEqual(V.parseQuery('name:x group:'), {error: 'group: nothing to match'});
});

// Two rows of CTA 0 and 1 (SM 2 and 5), groups producer and consumer, lanes tma and mma; the
// slices and instants as columns, the way materialise lays them out.
const D = {names: ['load', 'mma', 'sync'], lanes: ['tma', 'mma'],
           groups: [{name: 'producer'}, {name: 'consumer'}],
           rows: [{cta: 0, sm: 2, group: 0}, {cta: 1, sm: 5, group: 1, label: 'consumer[w3]'}]};
const S = {n: 5, name: Int32Array.of(0, 1, 1, 0, 2), row: Int32Array.of(0, 0, 1, 1, 1),
           lane: Int32Array.of(0, 1, 1, 7, 0), payload: Int32Array.of(0, 3, 4, -1, 9)};
const I = {n: 2, name: Int32Array.of(2, 2), row: Int32Array.of(0, 1), lane: Int32Array.of(0, 1),
           payload: Int32Array.of(1, 2)};
const match = q => {
  const {M, IM} = V.matchEvents(terms(q), {D, S, I});
  return {slices: Array.from(S.name, (_, i) => M[i + 1] - M[i]), instants: Array.from(IM)};
};

test('every term must hold', () => {
  assert.deepEqual(match('mma cta:1').slices, [0, 0, 1, 0, 0]);
  assert.deepEqual(match('mma payload:0-3').slices, [0, 1, 0, 0, 0]);
});

test('the matches are prefix sums over the slices', () => {
  const {M} = V.matchEvents(terms('mma'), {D, S, I});
  assert.deepEqual(Array.from(M), [0, 0, 1, 2, 2, 2]);
});

test('a group term matches the group\'s name or the row\'s label', () => {
  assert.deepEqual(match('group:w3').slices, [0, 0, 1, 1, 1]);
  assert.deepEqual(match('group:=producer').slices, [1, 1, 0, 0, 0]);
});

test('a lane past the map\'s list is named ?', () => {
  assert.deepEqual(match('lane:=?').slices, [0, 0, 0, 1, 0]);
});

test('cta and sm terms test the event\'s row', () => {
  assert.deepEqual(match('sm:5').slices, [0, 0, 1, 1, 1]);
  assert.deepEqual(match('cta:0 sm:5').slices, [0, 0, 0, 0, 0]);
});

test('instants are matched by the same terms', () => {
  assert.deepEqual(match('sync').instants, [1, 1]);
  assert.deepEqual(match('sync payload:2').instants, [0, 1]);
  assert.deepEqual(match('lane:tma').instants, [1, 0]);
});
