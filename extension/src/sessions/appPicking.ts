// What the Attach picker shows for each discovered app: name, pid, working directory, age, and
// whether it is already attached. Plain data (no `vscode`); the command turns it into quick pick items.
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../../runtime-probe/src/protocol/index';
import { formatAge } from './address';
import type { DiscoveredApp } from './discoveryWatcher';

export interface AppPickEntry {
  readonly app: DiscoveredApp;
  readonly label: string;
  readonly description: string;
  readonly detail: string;
  readonly attached: boolean;
}

/** Apps not yet attached first, then newest first; attached ones say so. */
export function appPickEntries(apps: readonly DiscoveredApp[], isAttached: (app: DiscoveredApp) => boolean, now: number = Date.now()): AppPickEntry[] {
  const entries = apps.map((app): AppPickEntry => {
    const attached = isAttached(app);
    const age = app.startTime > 0 ? `started ${formatAge(now - app.startTime)} ago` : 'start time unknown';
    return {
      app,
      label: app.name,
      description: `pid ${app.pid} · ${age}${attached ? ' · attached' : ''}`,
      detail: `${app.cwd}  ·  ${app.host}:${app.port}${
        SUPPORTED_PROTOCOL_VERSIONS.includes(app.protocolVersion) ? '' : `  ·  protocol v${app.protocolVersion}, not supported by this extension`
      }`,
      attached,
    };
  });
  return entries.sort((a, b) => Number(a.attached) - Number(b.attached) || b.app.startTime - a.app.startTime || b.app.pid - a.app.pid);
}
