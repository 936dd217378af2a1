// What `busscope check` prints. Text: warnings grouped by kind (in the analyses' order), each led
// by its first site as `path:line:column: severity: title` — the shape compilers print, so
// terminals and editors' problem matchers make it clickable — then the explanation, worded exactly
// as the extension's Problems entries, and the other sites. JSON (`--json`): the analyses' own
// warning objects, described by runtime-probe/check-output.schema.json.

import { WARNING_KINDS, type Warning, type WarningKind } from '../analysis/analyses/index';
import type { AppInfo } from '../protocol/index';
import { fails, failOnText, type FailOn } from './fail-on';
import { siteLocation } from './site-path';

/** Bumped when a field changes meaning or goes away (adding fields keeps it). */
export const CHECK_JSON_VERSION = 1;

/** Sites listed per warning in the text output; the JSON has all. */
const SITES_SHOWN = 5;

export type CheckedSource =
  { readonly kind: 'trace'; readonly file: string } | { readonly kind: 'app'; readonly label: string; readonly durationMs: number | null };

export interface CheckResult {
  readonly source: CheckedSource;
  readonly app: AppInfo | null;
  /** Record time the analyses judged at (ms since the app's probe started). */
  readonly recordTimeMs: number;
  /** Why the data may be incomplete (a trace cut mid-record, the app ending early); null when not. */
  readonly note: string | null;
  readonly failOn: FailOn;
  readonly warnings: readonly Warning[];
}

export function failing(result: CheckResult): readonly Warning[] {
  return result.warnings.filter((w) => fails(result.failOn, w));
}

function sourceText(s: CheckedSource): string {
  return s.kind === 'trace' ? s.file : s.label;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function formatText(result: CheckResult, cwd: string): string {
  const lines: string[] = [];
  const byKind = new Map<WarningKind, Warning[]>();
  for (const w of result.warnings) {
    let list = byKind.get(w.kind);
    if (list === undefined) byKind.set(w.kind, (list = []));
    list.push(w);
  }
  for (const kind of WARNING_KINDS) {
    const list = byKind.get(kind);
    if (list === undefined) continue;
    lines.push(`── ${kind} (${list.length}) ──`);
    for (const w of list) {
      const [first, ...rest] = distinctSites(w);
      const where = first === undefined ? '(no source site)' : siteLocation(first, cwd);
      lines.push(`${where}: ${w.severity}: ${w.title}${fails(result.failOn, w) ? '' : '  (does not fail)'}`);
      for (const line of w.explanation.split('\n')) lines.push(`    ${line}`);
      for (const s of rest.slice(0, SITES_SHOWN - 1)) lines.push(`    also at ${siteLocation(s, cwd)}${s.functionName !== null ? ` (${s.functionName})` : ''}`);
      if (rest.length > SITES_SHOWN - 1) lines.push(`    …and ${rest.length - (SITES_SHOWN - 1)} more sites (--json lists them all)`);
      lines.push('');
    }
  }
  const failed = failing(result).length;
  const total = result.warnings.length;
  if (result.note !== null) lines.push(`note: ${result.note}`);
  lines.push(
    total === 0
      ? `busscope check: no warnings in ${sourceText(result.source)}`
      : `busscope check: ${plural(total, 'warning')} in ${sourceText(result.source)}; ${failed} ${failed === 1 ? 'fails' : 'fail'} (--fail-on ${failOnText(result.failOn)})`,
  );
  return lines.join('\n') + '\n';
}

/** The sites of a warning without repeats (as the extension's Problems entries list them). */
function distinctSites(w: Warning): Warning['sites'] {
  const seen = new Set<string>();
  return w.sites.filter((s) => {
    const k = `${s.file}:${s.line}:${s.column}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export interface CheckJson {
  readonly version: typeof CHECK_JSON_VERSION;
  readonly source: CheckedSource;
  readonly app: AppInfo | null;
  readonly recordTimeMs: number;
  readonly note: string | null;
  readonly failOn: string;
  readonly failed: boolean;
  readonly counts: {
    readonly total: number;
    readonly failing: number;
    readonly bySeverity: Record<Warning['severity'], number>;
    readonly byKind: Partial<Record<WarningKind, number>>;
  };
  /** The analyses' warnings as the extension has them, most severe first, each marked whether it fails. */
  readonly warnings: readonly (Warning & { readonly fails: boolean })[];
}

export function toJson(result: CheckResult): CheckJson {
  const bySeverity: Record<Warning['severity'], number> = { error: 0, warning: 0, info: 0 };
  const byKind: Partial<Record<WarningKind, number>> = {};
  for (const w of result.warnings) {
    bySeverity[w.severity]++;
    byKind[w.kind] = (byKind[w.kind] ?? 0) + 1;
  }
  const failed = failing(result).length;
  return {
    version: CHECK_JSON_VERSION,
    source: result.source,
    app: result.app,
    recordTimeMs: result.recordTimeMs,
    note: result.note,
    failOn: failOnText(result.failOn),
    failed: failed > 0,
    counts: { total: result.warnings.length, failing: failed, bySeverity, byKind },
    warnings: result.warnings.map((w) => ({ ...w, fails: fails(result.failOn, w) })),
  };
}
