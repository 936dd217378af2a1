// `busscope check <trace|pid|port>`: runs the extension's analyses to completion (no work budget,
// so no partial results) over a trace or a running app observed for --duration, prints the
// warnings, and exits 1 when one that --fail-on selects is found (see exit-codes.ts).

import fs from 'node:fs';
import path from 'node:path';
import { analyze } from '../analysis/analyses/index';
import type { Model } from '../analysis/model/index';
import { UsageError, type CheckArgs } from './args';
import { Unreachable, type SessionEnd } from './attach';
import { failing, formatText, toJson, type CheckResult, type CheckedSource } from './check-report';
import { EXIT, type ExitCode } from './exit-codes';
import { parseFailOn, type FailOn } from './fail-on';
import { observeApp, loadTrace } from './observe';
import { toSarif } from './sarif';
import { analyzerOptionsFromSet } from './set-options';

export async function runCheck(flags: CheckArgs): Promise<ExitCode> {
  // Every flag is checked before the trace is read or the app looked for.
  let failOn: FailOn;
  try {
    failOn = parseFailOn(flags.failOn);
  } catch (error) {
    throw new UsageError((error as Error).message, 'check');
  }
  const analyzerOptions = analyzerOptionsFromSet(flags.set);
  const cwd = process.cwd();
  const sarifFile = flags.sarif === undefined ? undefined : path.resolve(flags.sarif);

  let model: Model;
  let source: CheckedSource;
  let note: string | null = null;
  let end: SessionEnd | undefined;
  switch (flags.source.kind) {
    case 'trace': {
      const t = await loadTrace(flags.source.file);
      model = t.model;
      source = { kind: 'trace', file: t.file };
      note = t.cut ?? null;
      break;
    }
    case 'app': {
      const a = await observeApp({ ...flags, target: flags.source.target });
      model = a.model;
      source = { kind: 'app', label: a.label, durationMs: flags.durationMs ?? null };
      end = a.end;
      const app = a.app;
      if (end.kind === 'app-ended' || end.kind === 'probe-stopped') {
        const what = end.kind === 'app-ended' ? 'ended' : 'stopped its probe';
        note = `${app} ${what} after ${Math.round(model.now)} ms of record time${flags.durationMs !== undefined ? `, before --duration was up` : ''}`;
      } else if (end.kind === 'failed') {
        note = `the connection to ${app} failed: ${end.message}`;
      }
      break;
    }
    default: {
      const never: never = flags.source;
      return never;
    }
  }

  const warnings = analyze(model, analyzerOptions);
  const result: CheckResult = { source, app: model.sessionInfo.app, recordTimeMs: model.now, note, failOn, warnings };
  if (sarifFile !== undefined) {
    try {
      fs.writeFileSync(sarifFile, JSON.stringify(toSarif(warnings, failOn, cwd), null, 2) + '\n');
    } catch (error) {
      throw new Unreachable(`cannot write ${sarifFile}: ${(error as Error).message}`);
    }
  }
  process.stdout.write(flags.json ? JSON.stringify(toJson(result), null, 2) + '\n' : formatText(result, cwd));
  if (failing(result).length > 0) return EXIT.findings;
  if (end?.kind === 'failed') return EXIT.unreachable;
  // Without --duration the app's end is how a live check ends; with it, the window was cut short.
  if ((end?.kind === 'app-ended' || end?.kind === 'probe-stopped') && flags.durationMs !== undefined) {
    process.stderr.write(`busscope: ${note}\n`);
    return EXIT.appEnded;
  }
  return EXIT.ok;
}
