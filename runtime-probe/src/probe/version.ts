/** The `busscope-probe` package version (a unit test keeps it equal to package.json). */
export const PROBE_VERSION = '0.1.0';
