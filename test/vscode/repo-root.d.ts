// The checkout the suite was bundled from (test/vscode-harness/build.ts defines it at bundle time):
// fixture apps under test/fixtures load the built package from there.
declare const BUSSCOPE_REPO_ROOT: string;
