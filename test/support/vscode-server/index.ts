// Driver library for tests in a real VS Code: code-server from the npm registry, Debian's chromium via
// playwright-core, the harness extension that runs the mocha suite (test/vscode) inside VS Code.
// See test/vscode/README.md for how the pieces fit and how to add a test.
export * from './artifacts';
export * from './browser';
export * from './harness';
export * from './install';
export * from './processes';
export * from './server';
export * from './vsix';
export * from './session';
