#!/usr/bin/env node
// The `busscope` command. A committed file rather than dist/cli.cjs itself: npm links a bin only when
// its target exists at install time, so in a fresh clone (`npm ci` before the first build) pointing
// at dist/ left `npx busscope` with nothing to run.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const cli = path.join(__dirname, '..', 'dist', 'cli.cjs');
if (!fs.existsSync(cli)) {
  process.stderr.write(`busscope: the CLI is not built (${cli} is missing); run \`npm run build\` in the repository first.\n`);
  process.exitCode = 70;
} else {
  require(cli);
}
