// The launch on screen: its model (launch_model.js) in the names every view reads, and the row and
// CTA labels they print. useLaunch switches launches (a run's page shows any of its launches).
/* global stats, laneNameOf, groupNameOf, rowLabelOf, launchHeader, applyFilter */
/* exported D, S, I, FL, FA, LOC, CTAS, COLORS, SPANS, linkPrefix, laneName, groupName, rowLabel,
            neverEnded, startedEmpty, ctaLabel, useLaunch */
let D = null, S = null, I = null, FL = null, FA = null, LOC = null, CTAS = null, COLORS = null;
let SPANS = null;     // what drawSlices draws from: the launch's slices, or the run's launches
let linkPrefix = '';  // URL hash of the launch's views: '' on its own page, 'launch=N&' in a run

const laneName = l => laneNameOf(D, l);
const groupName = g => groupNameOf(D, g);
const rowLabel = R => rowLabelOf(D, R);
// Started, never closed: cut off after recording (trapped), or empty (no writer ever came).
const neverEnded = R => R.started && !R.closed && R.stored > 0;
const startedEmpty = R => R.started && !R.closed && R.stored === 0;
const ctaLabel = c => `CTA ${c.cta} (${c.xyz.join(',')}) on SM ${c.sm}`;

// Makes `m` (from materialise) the launch that the CTA and grid views show.
function useLaunch(m, prefix) {
  ({D, S, I, FL, FA, LOC, CTAS, COLORS} = m);
  SPANS = {name: S.name, flags: S.flags, colors: COLORS, names: D.names, drawn: 'slicesDrawn',
           visible: 'slicesVisible'};
  linkPrefix = prefix;
  stats.totalSlices = S.n;
  stats.totalInstants = I.n;
  launchHeader();
  applyFilter();
}
