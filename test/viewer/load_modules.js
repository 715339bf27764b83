// Loads viewer modules (runtime/viewer/js/) under Node the way the page holds them: their texts
// concatenated into one function scope, in the order given. Returns the names each module says
// it gives (its /* exported */ line). Only the pure modules load here: the others need a page.
'use strict';
const fs = require('fs');
const path = require('path');

const MODULES = path.join(__dirname, '..', '..', 'runtime', 'viewer', 'js');

// The names in a module's /* KIND a, b, c */ comment (KIND: global or exported), without
// ':writable'.
function declared(text, kind) {
  const names = [];
  for (const m of text.matchAll(new RegExp(`/\\*\\s*${kind}\\s([^*]*)\\*/`, 'g')))
    for (const n of m[1].split(/[\s,]+/)) if (n) names.push(n.split(':')[0]);
  return names;
}

function moduleText(file) {
  return fs.readFileSync(path.join(MODULES, file), 'utf8');
}

function loadModules(...files) {
  const texts = files.map(moduleText);
  const given = texts.flatMap(t => declared(t, 'exported'));
  // One function scope, as on the page.
  return new Function(`'use strict';\n${texts.join('\n')}\nreturn {${given.join(', ')}};`)();
}

module.exports = {MODULES, declared, moduleText, loadModules};
