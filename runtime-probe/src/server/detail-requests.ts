// The recording detail while clients ask for different ones. Detail is process-wide (one recorder),
// so one client's `configure { detail }` must not outlive it: the effective detail is the highest
// that any connected client asked for, and when the last client with a request leaves, the app's
// own setting (what was in force before the first request) comes back.

import { DETAIL_LEVELS, type DetailLevel } from '../protocol/index';

export class DetailRequests<Client> {
  private readonly byClient = new Map<Client, DetailLevel>();
  /** The detail in force before the first of the current requests (the app's own setting). */
  private base: DetailLevel | undefined;

  /** Records `client`'s request (replacing its earlier one); returns the detail to apply. */
  request(client: Client, detail: DetailLevel, current: DetailLevel): DetailLevel {
    if (this.byClient.size === 0) this.base = current;
    this.byClient.set(client, detail);
    return this.highest();
  }

  /** Forgets `client`'s request; returns the detail to apply, or undefined when it had none. */
  release(client: Client): DetailLevel | undefined {
    if (!this.byClient.delete(client)) return undefined;
    if (this.byClient.size > 0) return this.highest();
    const base = this.base;
    this.base = undefined;
    return base;
  }

  private highest(): DetailLevel {
    let best = -1;
    for (const d of this.byClient.values()) best = Math.max(best, DETAIL_LEVELS.indexOf(d));
    return DETAIL_LEVELS[best];
  }
}
