// Attaching to a running app for tail, record and check: find it (discovery file, or port and
// token), connect, run until Ctrl+C, --duration or the app's end, and say how it ended.

import { ProbeClient } from '../client/index';
import { discoveryDirectory, listDiscoveredApps, type DiscoveredApp } from '../discovery/index';
import type { DetailLevel, StreamMessage } from '../protocol/index';
import type { RecordSink } from '../protocol/record-decoder';
import type { TargetArg } from './args';
import { EXIT, type ExitCode } from './exit-codes';

/** The app could not be reached or the output not created (exit 3). */
export class Unreachable extends Error {}

/** The flags every attaching command has. */
export interface AttachFlags {
  readonly target: TargetArg;
  readonly host: string | undefined;
  readonly detail: DetailLevel | undefined;
  readonly durationMs: number | undefined;
}

export interface Target {
  readonly host: string;
  readonly port: number;
  readonly token: string;
  readonly label: string;
}

/** Looks the app up (only after every flag was checked). */
export function resolveTarget(flags: Pick<AttachFlags, 'target' | 'host'>): Target {
  const t = flags.target;
  switch (t.kind) {
    case 'port-and-token':
      return { host: flags.host ?? '127.0.0.1', port: t.port, token: t.token, label: `port ${t.port}` };
    case 'pid-or-port': {
      const apps = listDiscoveredApps();
      const app: DiscoveredApp | undefined = apps.find((a) => a.pid === t.id) ?? apps.find((a) => a.port === t.id);
      if (app === undefined) {
        throw new Unreachable(
          `no running app with pid or port ${t.id} in ${discoveryDirectory()} (is it running with BUSSCOPE=1? ` +
            'for an app without a discovery file, pass --token)',
        );
      }
      return { host: flags.host ?? app.host, port: app.port, token: app.token, label: `${app.name} (pid ${app.pid}, port ${app.port})` };
    }
    default: {
      const never: never = t;
      return never;
    }
  }
}

/** How a tail/record session ended. */
export type SessionEnd =
  { readonly kind: 'stopped' } | { readonly kind: 'app-ended' } | { readonly kind: 'probe-stopped' } | { readonly kind: 'failed'; readonly message: string };

/** Connects, runs until the app closes the connection, Ctrl+C, or the duration; resolves with how it ended. */
export async function stream(
  target: Target,
  flags: AttachFlags,
  clientName: string,
  onMessage: ((m: StreamMessage) => void) | undefined,
  onFrame: ((frame: Uint8Array) => void) | undefined,
  bind: (client: ProbeClient, stop: () => void) => void,
  recordSink?: RecordSink,
): Promise<{ readonly end: SessionEnd; readonly app: string }> {
  let client: ProbeClient;
  try {
    client = await ProbeClient.connect({ host: target.host, port: target.port, token: target.token, clientName, onMessage, onFrame, recordSink });
  } catch (error) {
    throw new Unreachable(`cannot attach to ${target.label}: ${(error as Error).message}`);
  }
  const app = `app ${client.welcome.app.name} (pid ${client.welcome.app.pid})`;
  let stopRequested = false;
  const stop = () => {
    stopRequested = true;
    client.close();
  };
  bind(client, stop);
  if (flags.detail !== undefined) await client.configure({ detail: flags.detail }).catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (flags.durationMs !== undefined) timer = setTimeout(stop, flags.durationMs);
  const error = await client.closed;
  if (timer !== undefined) clearTimeout(timer);
  process.removeListener('SIGINT', stop);
  process.removeListener('SIGTERM', stop);
  if (stopRequested) return { end: { kind: 'stopped' }, app };
  // The probe says why whenever it closes a connection itself; a close without a reason (or a
  // reset) means the app's process went away.
  if (error === undefined || error.code === 'closed') return { end: { kind: 'app-ended' }, app };
  if (error.code === 'probe-stopping') return { end: { kind: 'probe-stopped' }, app };
  return { end: { kind: 'failed', message: error.message }, app };
}

/** Says on stderr why a session ended unless the user ended it; returns the exit code. */
export function reportEnd(end: SessionEnd, app: string): ExitCode {
  switch (end.kind) {
    case 'stopped':
      return EXIT.ok;
    case 'app-ended':
      process.stderr.write(`busscope: ${app} ended\n`);
      return EXIT.appEnded;
    case 'probe-stopped':
      process.stderr.write(`busscope: ${app} stopped its probe\n`);
      return EXIT.appEnded;
    case 'failed':
      process.stderr.write(`busscope: connection to ${app} failed: ${end.message}\n`);
      return EXIT.unreachable;
    default: {
      const never: never = end;
      return never;
    }
  }
}
