// The library buses a session asks its probe to record at full detail (`focus`). The probe records
// emitters whose listeners all come from Node's internals or node_modules at `lifecycle` detail; the
// views ask for them while the user looks: the Subscriptions tree's "libraries" group expanded, a
// library bus selected in the tree or the inspector. Each asker holds its own list; the probe gets
// the union (it replaces the list each time; [] clears). Sent like `breakOn` (debugging/breakOnSync.ts):
// only when the list changed, never to a closed client; the probe forgets it when the connection
// closes, so a detach needs only the local state cleared. No `vscode` here.
import type { ProbeClient } from '../../../runtime-probe/src/client/probe-client';
import { MAX_FOCUS_BUSES } from '../../../runtime-probe/src/protocol/limits';

/** Who asks: each replaces only its own part of the focus. */
export type FocusAsker = 'libraries-group' | 'tree-selection' | 'inspector-selection';

export class BusFocus {
  private readonly asked = new Map<FocusAsker, readonly number[]>();
  /** The list the probe last got (or is getting), as a key. */
  private sentKey = '';
  /** `focus` requests sent (tests and the log). */
  sends = 0;

  constructor(
    private readonly client: () => ProbeClient | undefined,
    private readonly log: (message: string) => void = () => undefined,
  ) {}

  /**
   * Sets one asker's buses (an empty list withdraws them) and sends the union when it changed.
   * Resolves once the probe answered (or at once when nothing was sent).
   */
  async set(asker: FocusAsker, buses: Iterable<number>): Promise<void> {
    const list = [...new Set(buses)].filter((b) => Number.isInteger(b) && b > 0);
    if (list.length === 0) this.asked.delete(asker);
    else this.asked.set(asker, list);
    await this.send();
  }

  /** The union of what every asker wants, capped at the protocol's limit (the newest buses first: ids grow). */
  get buses(): readonly number[] {
    const all = new Set<number>();
    for (const list of this.asked.values()) for (const b of list) all.add(b);
    const sorted = [...all].sort((a, b) => a - b);
    return sorted.length > MAX_FOCUS_BUSES ? sorted.slice(sorted.length - MAX_FOCUS_BUSES) : sorted;
  }

  /** The session ended: the probe already forgot this connection's focus. */
  reset(): void {
    this.asked.clear();
    this.sentKey = '';
  }

  private async send(): Promise<void> {
    const client = this.client();
    if (client === undefined || client.isClosed) return;
    // A probe speaking protocol 1 has no `focus` (and records everything at full detail anyway).
    if (client.welcome.protocolVersion < 2) return;
    const buses = this.buses;
    const key = buses.join(',');
    if (key === this.sentKey) return;
    this.sentKey = key;
    this.sends++;
    try {
      await client.focus(buses);
    } catch (error) {
      if (this.sentKey === key) this.sentKey = '\u0000unsent';
      if (!client.isClosed)
        this.log(`could not ask the probe for full detail on ${buses.length} library emitters: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
