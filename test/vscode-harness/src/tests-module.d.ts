// A module generated at bundle time by test/vscode-harness/build.ts: its default export `require`s
// every test/vscode/**/*.test.ts, in path order, when called (after mocha's globals exist).
declare module 'busscope:vscode-tests' {
  const loadTests: () => void;
  export default loadTests;
}
