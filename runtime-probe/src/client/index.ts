export { ProbeClient, ProbeClientError, type ProbeClientErrorCode, type ProbeClientOptions } from './probe-client';
export { readTraceFile, readTraceFileMessages } from '../trace/read-trace';
