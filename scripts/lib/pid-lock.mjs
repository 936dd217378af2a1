// A lock file holding the holder's pid, shared by processes that must not do the same work at once
// (provisioning a cache, packaging the VSIX). A lock whose holder is gone is taken over, so a killed
// run never blocks the next one.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

function holderAlive(pid) {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `fn` holding `lockPath`, waiting (polling every `pollMs`) while a live process holds it.
 * @template T
 * @param {string} lockPath
 * @param {{ timeoutMs: number, pollMs: number, onWait?: (holder: number) => void }} options
 * @param {() => T | Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function withPidLock(lockPath, { timeoutMs, pollMs, onWait }, fn) {
  mkdirSync(path.dirname(lockPath), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  let said = false;
  for (;;) {
    try {
      closeSync(openSync(lockPath, 'wx'));
      writeFileSync(lockPath, String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let holder;
      try {
        holder = Number(readFileSync(lockPath, 'utf8').trim() || 0);
      } catch {
        continue; // released between our open and read
      }
      if (!holderAlive(holder)) {
        rmSync(lockPath, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${lockPath} held by pid ${holder} for too long`, { cause: e });
      if (!said) {
        onWait?.(holder);
        said = true;
      }
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockPath, { force: true });
  }
}
