// One e2e run's files: screenshots and logs in .test-output/e2e/<name>/ (kept, so a failure can be
// looked at; CI keeps the folder), and a temp dir for the servers' state (user data, extensions,
// browser profile, workspace), removed after a passing run and kept after a failing one.
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const OWNER_FILE = '.owner-pid';

function ownerAlive(dir: string): boolean {
  try {
    const pid = Number(readFileSync(path.join(dir, OWNER_FILE), 'utf8'));
    if (!pid || pid === process.pid) return false;
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export class E2eArtifacts {
  private shots = 0;
  private readonly started = Date.now();
  private readonly logSources: Array<{ from: string; to: string }> = [];

  private constructor(
    /** .test-output/e2e/<name>: screenshots, run.log, logs/. */
    readonly outDir: string,
    /** Per-run state, outside the repo. */
    readonly tempDir: string,
  ) {}

  static create(name: string): E2eArtifacts {
    let outDir = path.join(repoRoot, '.test-output', 'e2e', name);
    // Several people may run the tests in one tree at once: never clear a folder a live run is writing.
    if (ownerAlive(outDir)) outDir = `${outDir}-${process.pid}`;
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(path.join(outDir, 'logs'), { recursive: true });
    writeFileSync(path.join(outDir, OWNER_FILE), String(process.pid));
    const tempDir = mkdtempSync(path.join(os.tmpdir(), `busscope-e2e-${name}-`));
    const a = new E2eArtifacts(outDir, tempDir);
    a.log(`temp dir ${tempDir}`);
    return a;
  }

  /** A timestamped line in run.log and on stderr (the test runner shows it with the test). */
  log(message: string): void {
    const line = `[e2e +${((Date.now() - this.started) / 1000).toFixed(1)}s] ${message}`;
    appendFileSync(path.join(this.outDir, 'run.log'), line + '\n');
    process.stderr.write(line + '\n');
  }

  /** The path for the next screenshot: NN-<name>.png, numbered in the order taken. */
  screenshotPath(name: string): string {
    this.shots += 1;
    return path.join(this.outDir, `${String(this.shots).padStart(2, '0')}-${name.replace(/[^\w.-]+/g, '-')}.png`);
  }

  /** A log file or folder to copy into logs/ when the run finishes. */
  collectLog(from: string, name: string): void {
    this.logSources.push({ from, to: path.join(this.outDir, 'logs', name) });
  }

  logPath(name: string): string {
    return path.join(this.outDir, 'logs', name);
  }

  /** Copies the logs; removes the temp dir after a passing run, keeps (and names) it otherwise. */
  finish(passed: boolean): void {
    for (const { from, to } of this.logSources) {
      try {
        if (existsSync(from)) cpSync(from, to, { recursive: true });
      } catch (e) {
        this.log(`could not copy log ${from}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    rmSync(path.join(this.outDir, OWNER_FILE), { force: true });
    if (passed) {
      rmSync(this.tempDir, { recursive: true, force: true });
    } else {
      this.log(`FAILED: screenshots and logs in ${this.outDir}; server state kept in ${this.tempDir}`);
    }
  }
}
