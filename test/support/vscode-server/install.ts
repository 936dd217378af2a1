// Where the test command's provisioning (scripts/provision.mjs) put code-server and Node 24, and which
// Chrome/Chromium opens the workbench: the same lookup the test command's tier summary uses
// (scripts/lib/test-env.mjs), so a tier it reports as run is never skipped here.
import { cacheDir, findVscodeServer, type InstallLookup, type VscodeServerInstall } from '../../../scripts/lib/test-env.mjs';

export { cacheDir, type InstallLookup, type VscodeServerInstall };

/** What installs the missing parts; `npm test` runs it by itself before these tests. */
export const INSTALL_COMMAND = 'node scripts/provision.mjs';

export function findVscodeServerInstall(): InstallLookup {
  return findVscodeServer();
}

/** The banner a test prints when it cannot run for lack of the install. */
export function missingInstallMessage(lookup: Extract<InstallLookup, { found: false }>): string {
  return [
    '',
    '!'.repeat(100),
    `!! VS Code server tests SKIPPED: ${lookup.reason}.`,
    `!! To run them: ${lookup.fix ?? INSTALL_COMMAND} (\`npm test\` provisions code-server and Node 24 into ${cacheDir()} by itself).`,
    '!! (with CI=true a missing install FAILS these tests instead.)',
    '!'.repeat(100),
    '',
  ].join('\n');
}
