// Shared by the CLI tests: the demo's trace (the built demo run for a few seconds with source maps and
// BUSSCOPE_RECORD, as test/integration/analyses/demo.test.ts records it), the CLI run as a child
// process, and ajv set up for the two schemas the CLI's output follows.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';

export const ROOT = path.resolve(__dirname, '../../..');
export const CLI = path.join(ROOT, 'runtime-probe/dist/cli.cjs');
const DEMO = path.join(ROOT, 'runtime-probe/dist/demo.cjs');

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Runs the demo for `seconds` (it exits by itself, disposing its buses) and returns its trace file. */
export async function recordDemoTrace(dir: string, seconds = 5): Promise<string> {
  if (!fs.existsSync(DEMO)) throw new Error(`${DEMO} is missing: run the build first`);
  const trace = path.join(dir, 'demo.bustrace');
  const child = spawn(process.execPath, ['--enable-source-maps', DEMO, '--duration', String(seconds), '--quiet'], {
    cwd: dir,
    env: { ...process.env, BUSSCOPE: '1', BUSSCOPE_RECORD: trace, BUSSCOPE_DISCOVERY_DIR: path.join(dir, 'discovery') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  if (code !== 0) throw new Error(`the demo exited ${code}: ${stderr}`);
  return trace;
}

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function cli(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function addFormats(ajv: { addFormat(name: string, test: (s: string) => boolean): unknown }): void {
  ajv.addFormat('uri', (s) => {
    try {
      new URL(s);
      return true;
    } catch {
      return false;
    }
  });
  ajv.addFormat('uri-reference', (s) => {
    try {
      new URL(s, 'file:///base/');
      return !/\s/.test(s);
    } catch {
      return false;
    }
  });
  ajv.addFormat('date-time', (s) => !Number.isNaN(Date.parse(s)));
}

/**
 * A validator for the official SARIF 2.1.0 schema (test/fixtures/sarif). The schema declares JSON
 * Schema 2020-12; two of its patterns use the `(?i)` inline flag JavaScript lacks (they become the
 * `i` flag), and its `region` definition nests an `anyOf` under `properties`, which is why the schema
 * itself is not meta-validated.
 */
export function sarifValidator() {
  const schema = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/sarif/sarif-schema-2.1.0.json'), 'utf8'));
  const regExp = Object.assign(
    (pattern: string, flags: string) => (pattern.startsWith('^(?i)') ? new RegExp(`^${pattern.slice(5)}`, `${flags}i`) : new RegExp(pattern, flags)),
    {
      code: 'new RegExp',
    },
  );
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true, code: { regExp } });
  addFormats(ajv);
  return ajv.compile(schema);
}

/** A validator for runtime-probe/check-output.schema.json (the documented `check --json` format). */
export function checkJsonValidator() {
  const schema = JSON.parse(fs.readFileSync(path.join(ROOT, 'runtime-probe/check-output.schema.json'), 'utf8'));
  const ajv = new Ajv({ strict: true, allErrors: true });
  return ajv.compile(schema);
}
