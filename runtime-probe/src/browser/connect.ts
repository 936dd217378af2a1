// `connect({ url, token, name })`: streams this page's (or worker's) buses to Busscope over a
// WebSocket. Records from the moment `connect` is called; while the extension is away it keeps
// trying to reach it again (every few seconds), unless it refused the page (wrong token, version).
// No Node built-ins here.

import type { AppInfo } from '../protocol/index';
import { PageLink, type PageSocket } from './page-link';
import { pageRecorder, startTracing, stopTracing } from './page-recorder';

export interface ConnectOptions {
  /** The WebSocket URL Busscope shows (*Busscope: Accept Browser Apps*), e.g. `ws://127.0.0.1:41234/`. */
  readonly url: string;
  /** The token Busscope shows next to the URL. */
  readonly token: string;
  /** The app's name in Busscope's Apps view (default: the page's title, else its host). */
  readonly name?: string;
  /** Record batches are dropped (and counted) while more than this is queued in the socket. Default 4 MiB. */
  readonly maxBufferedBytes?: number;
  /** Wait before trying again after the extension went away (ms, default 2000; 0: do not retry). */
  readonly retryMs?: number;
}

export type ConnectionState = 'connecting' | 'open' | 'retrying' | 'refused' | 'closed';

export interface BrowserConnection {
  /** `open` while Busscope receives this page's records. */
  readonly state: ConnectionState;
  /** Why the extension refused the page (state `refused`). */
  readonly refusal: string | undefined;
  /** Resolves once the stream is live (rejects when refused or closed first). */
  readonly ready: Promise<void>;
  /** Stops streaming and closes the socket. Idempotent. */
  close(): void;
}

const DEFAULT_MAX_BUFFERED_BYTES = 4194304; // 4 MiB (a literal: the page bundle is counted in bytes)
const TAB_ID_KEY = 'busscope.tabId';

let active: Connection | undefined;

/**
 * Connects this page to Busscope. One connection per page: call `close()` on the first before
 * connecting again.
 * @throws TypeError on bad options, or when this page is connected already.
 */
export function connect(options: ConnectOptions): BrowserConnection {
  const o = checkOptions(options);
  if (active !== undefined && active.state !== 'closed' && active.state !== 'refused') {
    throw new TypeError('connect: this page is connected to Busscope already; close() that connection first');
  }
  if (typeof WebSocket !== 'function') throw new TypeError('connect: this runtime has no WebSocket');
  active = new Connection(o);
  return active;
}

interface Checked {
  readonly url: string;
  readonly token: string;
  readonly name: string;
  readonly maxBufferedBytes: number;
  readonly retryMs: number;
}

function checkOptions(options: unknown): Checked {
  if (typeof options !== 'object' || options === null) throw new TypeError('connect: options must be an object { url, token, name? }');
  const { url, token, name, maxBufferedBytes, retryMs } = options as Partial<Record<keyof ConnectOptions, unknown>>;
  if (typeof url !== 'string' || !/^wss?:\/\//.test(url))
    throw new TypeError(`connect: url must be a ws:// or wss:// URL (got ${typeof url === 'string' ? JSON.stringify(url) : typeof url})`);
  if (typeof token !== 'string' || token.length === 0 || token.length > 256) throw new TypeError('connect: token must be the non-empty token Busscope shows');
  if (name !== undefined && (typeof name !== 'string' || name.length === 0)) throw new TypeError('connect: name must be a non-empty string');
  if (maxBufferedBytes !== undefined && (typeof maxBufferedBytes !== 'number' || !Number.isInteger(maxBufferedBytes) || maxBufferedBytes < 65536)) {
    throw new TypeError('connect: maxBufferedBytes must be an integer ≥ 65536');
  }
  if (retryMs !== undefined && (typeof retryMs !== 'number' || !Number.isFinite(retryMs) || retryMs < 0))
    throw new TypeError('connect: retryMs must be a number ≥ 0');
  return {
    url,
    token,
    name: name ?? defaultName(),
    maxBufferedBytes: maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
    retryMs: retryMs ?? 2000,
  };
}

function defaultName(): string {
  const g = globalThis as { document?: { title?: string }; location?: { host?: string } };
  const title = g.document?.title;
  if (typeof title === 'string' && title.trim() !== '') return title.trim();
  return g.location?.host ?? 'browser app';
}

/**
 * A per-tab id kept in sessionStorage: a reload is the same app, another tab is another. A shared
 * worker (`onconnect`) or a service worker (`clients`) has no sessionStorage, but the browser runs one
 * per script URL and name: it sends those, which Busscope hashes into its id, so that it is the same
 * app when it starts again (its last page reloaded). A dedicated worker lives and dies with its page,
 * and anything else is no browser: a fresh id. Busscope hashes whatever is not 16 hex digits, so a
 * stored id is sent as it is.
 */
function tabId(): string {
  const fresh = (): string => {
    const bytes = new Uint8Array(8);
    globalThis.crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  };
  try {
    const g = globalThis as {
      sessionStorage?: { getItem(k: string): string | null; setItem(k: string, v: string): void };
      location?: { href: string };
      name?: string;
    };
    const storage = g.sessionStorage;
    if (storage === undefined) return 'onconnect' in g || 'clients' in g ? `${g.location!.href} ${g.name}` : fresh();
    let id = storage.getItem(TAB_ID_KEY);
    if (id === null) storage.setItem(TAB_ID_KEY, (id = fresh()));
    return id;
  } catch {
    return fresh(); // storage denied (sandboxed frame)
  }
}

/** What the welcome says about the page: its origin stands for the working folder, pid is 0. */
function pageApp(name: string, startTime: number): AppInfo {
  const g = globalThis as { location?: { origin?: string; href?: string }; navigator?: { userAgent?: string } };
  const origin = g.location?.origin ?? 'null';
  const agent = g.navigator?.userAgent ?? 'unknown';
  return { pid: 0, name, cwd: origin, startTime, runtime: `browser ${agent}`.slice(0, 256) };
}

class Connection implements BrowserConnection {
  state: ConnectionState = 'connecting';
  refusal: string | undefined;
  readonly ready: Promise<void>;
  private settle: ((error?: Error) => void) | undefined;
  private link: PageLink | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly recorder = pageRecorder();
  private readonly startTime = Date.now();
  private readonly tab = tabId();

  constructor(private readonly o: Checked) {
    this.ready = new Promise<void>((resolve, reject) => {
      this.settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    // Nobody need await it: an unobserved rejection must not become an error in the page's console.
    this.ready.catch(() => undefined);
    // Subscriptions made from now on get their sites, as under a started Node probe.
    startTracing(this.recorder);
    this.dial();
  }

  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.link?.close();
    this.link = undefined;
    if (this.recorder.sinkCount === 0) stopTracing(this.recorder);
    this.resolve(new Error('closed before Busscope accepted the page'));
  }

  private resolve(error?: Error): void {
    const settle = this.settle;
    this.settle = undefined;
    settle?.(error);
  }

  private dial(): void {
    let socket: PageSocket;
    try {
      const url = new URL(this.o.url);
      url.searchParams.set('tab', this.tab);
      socket = new WebSocket(url.href) as unknown as PageSocket;
    } catch (error) {
      this.refuse(`cannot open ${this.o.url}: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const app = pageApp(this.o.name, this.startTime);
    this.link = new PageLink(
      socket,
      this.recorder,
      { token: this.o.token, app, maxBufferedBytes: this.o.maxBufferedBytes },
      {
        opened: () => {
          this.state = 'open';
          this.resolve();
        },
        closed: (refused) => {
          this.link = undefined;
          if (this.state === 'closed') return;
          if (refused !== undefined) return this.refuse(`${refused.code}: ${refused.message}`);
          if (this.o.retryMs === 0) {
            this.state = 'closed';
            this.resolve(new Error('the connection to Busscope closed'));
            return;
          }
          this.state = 'retrying';
          this.retryTimer = setTimeout(() => {
            this.retryTimer = undefined;
            if (this.state === 'retrying') this.dial();
          }, this.o.retryMs);
        },
      },
    );
  }

  private refuse(reason: string): void {
    this.state = 'refused';
    this.refusal = reason;
    if (this.recorder.sinkCount === 0) stopTracing(this.recorder);
    try {
      console.warn(`[busscope] Busscope refused this page: ${reason}`);
    } catch {
      // no console
    }
    this.resolve(new Error(reason));
  }
}
