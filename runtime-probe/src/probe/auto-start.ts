// Acting on the environment when the package loads (the variables are in environment.ts). Once per
// process, whichever copy of the package loads first: the ESM and the CJS build in one process must
// not start two probes or open the same trace file twice.

import { runtime } from '../bus/runtime';
import { readProbeEnvironment, type EnvironmentReader } from './environment';
import { probe } from './probe';
import { reportProbeFailure, reportProbeWarning } from './report';

export function autoStartFromEnvironment(env: NodeJS.ProcessEnv = process.env, reader: EnvironmentReader = 'package'): void {
  if (runtime.environmentRead) return;
  runtime.environmentRead = true;
  try {
    const wanted = readProbeEnvironment(env, reader);
    for (const problem of wanted.problems) reportProbeWarning(problem);
    if (wanted.record !== undefined) probe.record(wanted.record.file, wanted.record.options);
    if (wanted.start !== undefined) void probe.start(wanted.start);
  } catch (error) {
    // The parser already turned every bad value into a warning: what is left is unexpected.
    reportProbeFailure('starting from the environment (BUSSCOPE / BUSSCOPE_RECORD)', error);
  }
}
