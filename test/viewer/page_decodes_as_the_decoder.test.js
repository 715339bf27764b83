// The page's decoding of real H200 launches (trace-view --html, decoded by materialise in
// runtime/viewer/js/launch_model.js) equals the decoder's (trace-view --json): every slice,
// instant and flow, with its name, lane, payload, cycles and ns, per row. Needs trace-view:
// CUTRACE_TRACE_VIEW=build/bin/trace-view node --test test/viewer/page_decodes_as_the_decoder.test.js
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const {execFileSync} = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const {loadModules} = require('./load_modules');

const V = loadModules('columns.js', 'search.js', 'launch_model.js');
const traceView = process.env.CUTRACE_TRACE_VIEW;
const fixtures = path.join(__dirname, '..', 'data', 'h200');

// trace-view's page and JSON of one launch: the page's data object and the decoder's rows.
function exported(ctrace) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cutrace-page-'));
  try {
    const html = path.join(dir, 'page.html'), json = path.join(dir, 'launch.json');
    execFileSync(traceView, [ctrace, '--html', html, '--json', json], {stdio: 'pipe'});
    const page = fs.readFileSync(html, 'utf8');
    const m = /<script type="application\/json" id="cutrace-data">([^<]*)<\/script>/.exec(page);
    assert.ok(m, 'the page has its data element');
    return {data: JSON.parse(m[1]), decoded: JSON.parse(fs.readFileSync(json, 'utf8'))};
  } finally {
    fs.rmSync(dir, {recursive: true, force: true});
  }
}

const byText = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const sorted = items => items.map(x => JSON.stringify(x)).sort(byText);

for (const fixture of ['ws_gemm.ctrace', 'pipeline.ctrace', 'issue14/layernorm_rows.ctrace']) {
  test(`${fixture}: the page decodes every event as the decoder does`,
       {skip: !traceView && 'CUTRACE_TRACE_VIEW (a trace-view binary) is not set'}, () => {
    const {data, decoded} = exported(path.join(fixtures, fixture));
    const {D, S, I, FA} = V.materialise(data);
    assert.equal(D.rows.length, decoded.rows.length, 'rows');
    const pageSlices = decoded.rows.map(() => []), pageInstants = decoded.rows.map(() => []);
    for (let i = 0; i < S.n; i++)
      pageSlices[S.row[i]].push([D.names[S.name[i]], V.laneNameOf(D, S.lane[i]), S.payload[i],
                                 S.b_cyc[i], S.e_cyc[i], S.b_ns[i], S.e_ns[i], !!(S.flags[i] & 1)]);
    for (let i = 0; i < I.n; i++)
      pageInstants[I.row[i]].push([D.names[I.name[i]], V.laneNameOf(D, I.lane[i]), I.payload[i],
                                   I.cyc[i], I.ns[i]]);
    let slices = 0, instants = 0;
    decoded.rows.forEach((R, r) => {
      assert.equal(D.rows[r].cta, R.cta, `row ${r}: its CTA`);
      const want = R.slices.map(s => [s.name, s.lane, s.payload, s.begin_cycles, s.end_cycles,
                                      s.begin_ns, s.end_ns, s.incomplete]);
      assert.deepEqual(sorted(pageSlices[r]), sorted(want), `row ${r}: slices`);
      const wantInstants = R.instants.map(e => [e.name, e.lane, e.payload, e.cycles, e.ns]);
      assert.deepEqual(sorted(pageInstants[r]), sorted(wantInstants), `row ${r}: instants`);
      slices += want.length;
      instants += wantInstants.length;
    });
    assert.ok(slices > 0, 'the fixture has slices');
    assert.equal(slices, S.n);
    assert.equal(instants, I.n);
    assert.deepEqual(Array.from(FA).sort((a, b) => a - b),
                     decoded.flows.map(f => f.at_cycles).sort((a, b) => a - b), 'flows land');
  });
}
