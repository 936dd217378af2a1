// The app pages the Chromium tests open: a few files held in memory (the page, its scripts, the
// built browser entries), served from a loopback HTTP server — nothing else of the repo.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One file a page loads: its body and content type. */
export interface StaticFile {
  readonly type: string;
  readonly body: string | Buffer;
}

export interface StaticServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Extra response headers for a request (e.g. cross-origin isolation), given its URL and request. */
export type HeadersFor = (url: URL, req: http.IncomingMessage) => Record<string, string>;

/** A page that runs `script` as a module; `title` and `body` as the test wants them. */
export function modulePage(script: string, { title, body = '' }: { title?: string; body?: string } = {}): StaticFile {
  const head = title === undefined ? '' : `<title>${title}</title>`;
  return {
    type: 'text/html; charset=utf-8',
    body: `<!DOCTYPE html><html><head>${head}<script type="module" src="${script}"></script></head><body>${body}</body></html>`,
  };
}

/** A JavaScript file. */
export function script(body: string | Buffer): StaticFile {
  return { type: 'text/javascript', body };
}

/**
 * Serves `files` by path, uncached (each response `cache-control: no-store`, plus `headersFor`'s);
 * any other path is a 404.
 */
export async function serveFiles(files: Readonly<Record<string, StaticFile>>, headersFor?: HeadersFor): Promise<StaticServer> {
  const byPath = new Map(Object.entries(files));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const file = byPath.get(url.pathname);
    if (file === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store', ...headersFor?.(url, req) });
    res.end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => closeHttpServer(server) };
}

/** Stops `server` at once: connections a browser keeps alive (or has in flight) would hold close() open. */
export function closeHttpServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
