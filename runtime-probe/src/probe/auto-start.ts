// Acting on the environment when the package loads (the variables are in environment.ts). Once per
// process, whichever copy of the package loads first: the ESM and the CJS build in one process must
// not start two probes or open the same trace file twice. Once per process also means the main
// thread only: worker threads share the process's environment, and a probe per worker would be a
// second socket and discovery file for the same pid (and a second writer of BUSSCOPE_RECORD's file).

import { isMainThread } from 'node:worker_threads';
import { runtime } from '../bus/runtime';
import { readProbeEnvironment, type EnvironmentReader } from './environment';
import { probe } from './probe';
import { reportProbeFailure, reportProbeWarning } from './report';

/** Returns whether this call started the probe (it listens once the returned start settles). */
export function autoStartFromEnvironment(env: NodeJS.ProcessEnv = process.env, reader: EnvironmentReader = 'package'): boolean {
  if (runtime.environmentRead) return false;
  runtime.environmentRead = true;
  if (!isMainThread) return false;
  try {
    const wanted = readProbeEnvironment(env, reader);
    for (const problem of wanted.problems) reportProbeWarning(problem);
    if (wanted.record !== undefined) probe.record(wanted.record.file, wanted.record.options);
    if (wanted.start !== undefined) {
      void probe.start(wanted.start);
      return true;
    }
  } catch (error) {
    // The parser already turned every bad value into a warning: what is left is unexpected.
    reportProbeFailure('starting from the environment (BUSSCOPE / BUSSCOPE_RECORD)', error);
  }
  return false;
}
