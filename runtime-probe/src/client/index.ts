export { ProbeClient, ProbeClientError, type ClientTransport, type ProbeClientErrorCode, type ProbeClientOptions } from './probe-client';
export { readTraceFile, readTraceFileMessages } from '../trace/read-trace';
