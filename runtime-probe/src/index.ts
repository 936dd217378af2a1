export * from './bus/index';
export { probe, Probe, PROBE_VERSION, type ProbeInfo, type ProbeStartOptions, type Recording } from './probe/index';
export { ProbeClient, ProbeClientError, readTraceFile, readTraceFileMessages } from './client/index';
export type { ProbeClientErrorCode, ProbeClientOptions } from './client/index';
export { discoveryDirectory, listDiscoveredApps, type DiscoveredApp, type DiscoveryEntry } from './discovery/index';
export type { PayloadSanitizer } from './recorder/payload';
export type { WatchHandle, WatchOptions } from './emitters/watch';

// Worker threads share the id counters and forward their buses to the main thread's probe.
import { installThreads } from './threads/environment';
installThreads();

// BUSSCOPE=1 / BUSSCOPE_RECORD=<file>: start when the package loads.
import { autoStartFromEnvironment } from './probe/auto-start';
autoStartFromEnvironment();
