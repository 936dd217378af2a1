// Environment switches read when the package loads:
//   BUSSCOPE=1              start the probe server (BUSSCOPE_NAME, BUSSCOPE_PORT, BUSSCOPE_HOST optional;
//                           a non-loopback BUSSCOPE_HOST also needs BUSSCOPE_ALLOW_REMOTE=1)
//   BUSSCOPE_RECORD=<file>  record a trace to <file> (no socket needed)

import { probe } from './probe';
import { reportProbeFailure } from './report';

let done = false;

export function autoStartFromEnvironment(env: NodeJS.ProcessEnv = process.env): void {
  if (done) return;
  done = true;
  try {
    const record = env.BUSSCOPE_RECORD;
    if (record !== undefined && record !== '') probe.record(record);
    const on = env.BUSSCOPE;
    if (on === '1' || on === 'true') {
      const port = env.BUSSCOPE_PORT === undefined ? undefined : Number(env.BUSSCOPE_PORT);
      void probe.start({
        name: env.BUSSCOPE_NAME || undefined,
        host: env.BUSSCOPE_HOST || undefined,
        allowRemote: env.BUSSCOPE_ALLOW_REMOTE === '1' || env.BUSSCOPE_ALLOW_REMOTE === 'true',
        port: port !== undefined && Number.isInteger(port) ? port : undefined,
      });
    }
  } catch (error) {
    reportProbeFailure('starting from the environment (BUSSCOPE / BUSSCOPE_RECORD)', error);
  }
}
