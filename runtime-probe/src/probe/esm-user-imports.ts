// For the register hook's "is this tool the app?" (register.ts): a tool under node_modules that
// imports the user's ES modules itself (a test runner importing spec files, a CLI importing
// app.mjs) loads them through the ESM loader, which `require.cache` never sees. A resolve hook
// (`node:module` register, Node ≥ 20.6) runs in the loader's thread and tells the main thread, over a
// BroadcastChannel, of each file outside node_modules that a module under node_modules imports. Only
// such imports count: the user's own `--import` hooks (imported by Node itself) and what the user's
// files import do not. (A MessagePort passed in register()'s `data` from a --require preload made
// Node 20 exit with code 1 and no message: hence the named channel.)
import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { BroadcastChannel } from 'node:worker_threads';

const CHANNEL = 'busscope.register.tool-esm-imports';

/** The hook module, run in the loader's thread (no access to this bundle). */
const HOOK = `import { BroadcastChannel } from 'node:worker_threads';
const channel = new BroadcastChannel(${JSON.stringify(CHANNEL)});
channel.unref();
const NODE_MODULES = /[\\\\/]node_modules[\\\\/]/;
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const parent = context.parentURL;
  if (typeof parent === 'string' && parent.startsWith('file:') && NODE_MODULES.test(parent) &&
      typeof resolved.url === 'string' && resolved.url.startsWith('file:') && !NODE_MODULES.test(resolved.url)) {
    channel.postMessage(resolved.url);
  }
  return resolved;
}
`;

type RegisterHooks = (specifier: string) => void;

/**
 * Calls `onUserModule(file)` once, when a module under node_modules imports an ES module that
 * `isUserFile` accepts. Returns false (and does nothing) where Node cannot register loader hooks.
 */
export function watchToolEsmImports(isUserFile: (file: string) => boolean, onUserModule: (file: string) => void): boolean {
  const register = (module as { register?: RegisterHooks }).register;
  if (typeof register !== 'function') return false;
  const channel = new BroadcastChannel(CHANNEL);
  // Never keeps the process alive; closed after the first match (the hook's messages then go nowhere).
  channel.unref();
  let done = false;
  channel.onmessage = (message: unknown) => {
    const url = (message as { data?: unknown }).data;
    if (done || typeof url !== 'string') return;
    let file: string;
    try {
      file = fileURLToPath(url);
    } catch {
      return;
    }
    if (!isUserFile(file)) return;
    done = true;
    channel.close();
    onUserModule(file);
  };
  register(`data:text/javascript,${encodeURIComponent(HOOK)}`);
  return true;
}
