export { probe, Probe, PROBE_GLOBAL_KEY, type ProbeInfo, type Recording } from './probe';
export type { ProbeStartOptions } from './options';
export { PROBE_VERSION } from './version';
export { autoStartFromEnvironment } from './auto-start';
