// The probe never throws into the app: failures are caught where they happen and reported once per
// place (a failing socket on every dispatch must not flood the console).

import { runtime } from '../bus/runtime';

/** Shared by every copy of the package, so each is reported once per process. */
const reported = runtime.reported;

export function reportProbeFailure(where: string, error: unknown): void {
  if (reported.has(where)) return;
  reported.add(where);
  try {
    const detail = error instanceof Error ? error.message : String(error);
    console.warn(`[busscope] probe: ${where} failed (${detail}); the app is unaffected, further failures here are not reported`);
  } catch {
    // console itself failed: nothing left to tell
  }
}

/** A warning that is not a failure (reported once per message). */
export function reportProbeWarning(message: string): void {
  if (reported.has(message)) return;
  reported.add(message);
  try {
    console.warn(`[busscope] probe: ${message}`);
  } catch {
    // nothing left to tell
  }
}
