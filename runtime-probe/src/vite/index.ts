// `busscope-probe/vite`: a Vite plugin that, while the dev server runs (`vite`, `vite dev`), adds
// `connect({ url, token, name })` from busscope-probe/browser to every HTML page it serves — and does
// nothing at all in `vite build` (`apply: 'serve'`), so no token or probe code reaches a production
// bundle. URL and token: the options, else BUSSCOPE_BROWSER_URL / BUSSCOPE_BROWSER_TOKEN, else what
// *Busscope: Accept Browser Apps* wrote to the discovery directory — read again for each page, so a
// reload after restarting Accept picks up the new token. Without any, pages are served unchanged.
// Node only (it runs in Vite's process). Vite's types are not imported: the package does not depend
// on Vite; the object below is what Vite's Plugin interface asks for.

import { readBrowserAppsFile, type BrowserAppsEntry } from '../discovery/browser-apps-file';

export interface BusscopeViteOptions {
  /** The WebSocket URL Busscope shows. Default: BUSSCOPE_BROWSER_URL, else the running Accept Browser Apps. */
  readonly url?: string;
  /** The token Busscope shows. Default: BUSSCOPE_BROWSER_TOKEN, else the running Accept Browser Apps. */
  readonly token?: string;
  /** The app's name in Busscope (default: the page's title, else its host). */
  readonly name?: string;
  /**
   * Also import `busscope-probe/browser/payloads` before `connect`, so the page can record payload
   * previews (with Busscope's `busscope.capturePayloads` on) from its first dispatch. Default false.
   */
  readonly payloads?: boolean;
  /** Discovery directory override (tests; default: the probe's). */
  readonly discoveryDir?: string;
}

/** The tag Vite adds to the page (Vite's HtmlTagDescriptor). */
export interface InjectedTag {
  readonly tag: 'script';
  readonly attrs: { readonly type: 'module' };
  readonly children: string;
  readonly injectTo: 'head-prepend';
}

/** The plugin object (a Vite `Plugin`). */
export interface BusscopeVitePlugin {
  readonly name: 'busscope';
  readonly apply: 'serve';
  transformIndexHtml(): InjectedTag[];
}

function checkOptions(options: unknown): BusscopeViteOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) throw new TypeError('busscope(): options must be an object { url?, token?, name?, payloads? }');
  const o = options as Record<string, unknown>;
  for (const key of ['url', 'token', 'name', 'discoveryDir']) {
    if (o[key] !== undefined && (typeof o[key] !== 'string' || o[key] === '')) throw new TypeError(`busscope(): options.${key} must be a non-empty string`);
  }
  if (o.payloads !== undefined && typeof o.payloads !== 'boolean') throw new TypeError('busscope(): options.payloads must be a boolean');
  if (typeof o.url === 'string' && !/^wss?:\/\//.test(o.url)) throw new TypeError(`busscope(): options.url must be a ws:// URL (got ${JSON.stringify(o.url)})`);
  return o as BusscopeViteOptions;
}

/** Where the page connects now, or undefined (nothing is injected then). */
function target(o: BusscopeViteOptions): BrowserAppsEntry | undefined {
  const url = o.url ?? process.env.BUSSCOPE_BROWSER_URL;
  const token = o.token ?? process.env.BUSSCOPE_BROWSER_TOKEN;
  if (url !== undefined && url !== '' && token !== undefined && token !== '') return { url, token };
  return readBrowserAppsFile(o.discoveryDir);
}

/**
 * `plugins: [busscope()]` in vite.config: the dev server's pages stream their buses to Busscope.
 * @throws TypeError on bad options.
 */
export function busscope(options?: BusscopeViteOptions): BusscopeVitePlugin {
  const o = checkOptions(options);
  return {
    name: 'busscope',
    apply: 'serve',
    transformIndexHtml() {
      const t = target(o);
      if (t === undefined) return [];
      const args = `{ url: ${JSON.stringify(t.url)}, token: ${JSON.stringify(t.token)}${o.name === undefined ? '' : `, name: ${JSON.stringify(o.name)}`} }`;
      return [
        {
          tag: 'script',
          attrs: { type: 'module' },
          // First in <head>: buses the app creates are recorded with their subscribe sites.
          // Payload capture first: its Proxy check notes the Proxies made from then on.
          children: `${o.payloads === true ? "import 'busscope-probe/browser/payloads';\n" : ''}import { connect } from 'busscope-probe/browser';\nconnect(${args});`,
          injectTo: 'head-prepend',
        },
      ];
    },
  };
}

export default busscope;
