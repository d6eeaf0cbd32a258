// The Node half of tools/validate-gltf: validates each file named on the command line with the
// Khronos glTF-Validator (found through NODE_PATH) and prints a summary line per file, or the
// full report as JSON. Arguments: JSON_FLAG (0 or 1) FILE...
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

const [json, ...files] = process.argv.slice(2);
const SEVERITY = ['ERROR', 'WARNING'];

// Buffers and images a .gltf names by URI are read from beside it.
function loader(file) {
  return (uri) =>
    fs.promises
      .readFile(path.join(path.dirname(file), decodeURIComponent(uri)))
      .then((b) => new Uint8Array(b));
}

async function check(file) {
  const bytes = new Uint8Array(await fs.promises.readFile(file));
  const report = await validator.validateBytes(bytes, {
    uri: file,
    maxIssues: 0,
    externalResourceFunction: loader(file),
  });
  const issues = report.issues;
  if (json === '1') {
    console.log(JSON.stringify(report));
  } else {
    console.log(
      `${file} errors=${issues.numErrors} warnings=${issues.numWarnings} infos=${issues.numInfos} hints=${issues.numHints}`
    );
    for (const m of issues.messages) {
      if (m.severity < SEVERITY.length) {
        console.log(`  ${SEVERITY[m.severity]} ${m.code} ${m.pointer || ''} ${m.message}`);
      }
    }
  }
  return issues.numErrors + issues.numWarnings === 0;
}

(async () => {
  let clean = true;
  for (const file of files) {
    clean = (await check(file)) && clean;
  }
  process.exit(clean ? 0 : 1);
})().catch((e) => {
  console.error(`validate-gltf: ${e.message || e}`);
  process.exit(2);
});
