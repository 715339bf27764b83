// The page's script is its modules (runtime/viewer/js/) in one scope, in the order
// runtime/viewer/viewer_sources.cmake lists them. Each module says what it takes from the others
// (/* global */) and what it gives (/* exported */); ESLint checks each module against its own
// lines, these tests check the lines against each other.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const {MODULES, declared, moduleText} = require('./load_modules');

const sources = fs.readFileSync(path.join(MODULES, '..', 'viewer_sources.cmake'), 'utf8');
const listed = name => {
  const m = new RegExp(`set\\(${name}\\s([^)]*)\\)`).exec(sources);
  return m[1].split(/\s+/).filter(Boolean).map(n => n + '.js');
};
const order = [...listed('CUTRACE_VIEWER_LAUNCH_JS'), ...listed('CUTRACE_VIEWER_RUN_JS'),
               ...listed('CUTRACE_VIEWER_START_JS')];
const modules = new Map(order.map(f => [f, moduleText(f)]));
const givers = new Map(); // name -> the modules that give it
for (const [f, text] of modules)
  for (const n of declared(text, 'exported')) givers.set(n, [...(givers.get(n) || []), f]);

test('the page holds every module in js/, each once', () => {
  const files = fs.readdirSync(MODULES).filter(f => f.endsWith('.js')).sort();
  assert.deepEqual([...order].sort(), files);
  assert.equal(new Set(order).size, order.length);
});

test('every name a module takes is given by exactly one other module', () => {
  for (const [f, text] of modules)
    for (const n of declared(text, 'global')) {
      const from = givers.get(n) || [];
      assert.equal(from.length, 1, `${f} takes ${n}, given by ${from.join(', ') || 'none'}`);
      assert.notEqual(from[0], f, `${f} takes ${n} from itself`);
    }
});

test('every name a module gives is declared at its top level and taken by another', () => {
  const taken = new Set([...modules.values()].flatMap(t => declared(t, 'global')));
  for (const [f, text] of modules)
    for (const n of declared(text, 'exported')) {
      const e = n.replace(/\$/g, '\\$');
      const decl = new RegExp(`^(?:function\\s+${e}\\b|(?:const|let)\\s[^;]*?(?<![\\w$])${e}\\s*=)`,
                              'm');
      assert.match(text, decl, `${f} gives ${n} but does not declare it`);
      assert.ok(taken.has(n), `${f} gives ${n}, which no module takes`);
    }
});

test('a module\'s top level uses only what modules before it declared', () => {
  // Top-level statements run in page order; const and let are not hoisted. A name used at the
  // top level (outside any function) of a module must come from an earlier one.
  const seen = new Set();
  for (const [f, text] of modules) {
    const topLevel = text.split('\n').filter(l => /^[$\w]/.test(l) && !/^(function|})/.test(l));
    for (const n of declared(text, 'global')) {
      const e = n.replace(/\$/g, '\\$');
      const used = topLevel.some(l => new RegExp(`(?<![\\w$.])${e}(?![\\w$])`).test(
        l.replace(/^(?:const|let)\s+[\w$]+\s*=/, '')));
      const hoisted = new RegExp(`^function\\s+${e}\\b`, 'm');
      const giver = modules.get(givers.get(n)[0]);
      if (used && !hoisted.test(giver)) assert.ok(seen.has(n), `${f} uses ${n} before it is declared`);
    }
    for (const n of declared(text, 'exported')) seen.add(n);
  }
});
