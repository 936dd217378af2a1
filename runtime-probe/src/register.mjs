// `node --import busscope-probe/register app.mjs`: the same script as `--require` (dist/register.cjs),
// loaded through require so that both flags in one process (NODE_OPTIONS plus a command line) load
// it once.
import { createRequire } from 'node:module';

try {
  createRequire(import.meta.url)('./register.cjs');
} catch (error) {
  try {
    process.stderr.write(
      `[busscope] busscope-probe/register could not load (${error instanceof Error ? error.message : String(error)}); the app runs without it. ` +
        'To turn it off, remove busscope-probe/register from NODE_OPTIONS / --import.\n',
    );
  } catch {
    // no stderr: nothing left to tell
  }
}
