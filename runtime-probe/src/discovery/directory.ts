// Where discovery files live: one per-user directory, private to the user (0700).
//   1. $BUSSCOPE_DISCOVERY_DIR (tests, the extension, custom setups)
//   2. $XDG_RUNTIME_DIR/busscope (Linux sessions: per-user, tmpfs, cleared at logout)
//   3. Windows: %LOCALAPPDATA%\busscope\apps
//   4. ~/.busscope/apps

import os from 'node:os';
import path from 'node:path';

export function discoveryDirectory(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const override = env.BUSSCOPE_DISCOVERY_DIR;
  if (override !== undefined && override !== '') return path.resolve(override);
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg !== undefined && xdg !== '' && platform !== 'win32') return path.join(xdg, 'busscope');
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA;
    if (local !== undefined && local !== '') return path.join(local, 'busscope', 'apps');
  }
  return path.join(os.homedir(), '.busscope', 'apps');
}
