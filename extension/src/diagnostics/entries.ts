// Which warnings become Problems, and where: one entry per distinct source site of each warning (the
// most relevant few), for every session except those the user detached from (detaching clears
// them; an app that exited keeps its warnings until cleared). Plain data, no `vscode`.
import type { SiteInfo } from '../../../runtime-probe/src/protocol/index';
import type { Severity, Warning, WarningKind } from '../../../runtime-probe/src/analysis/analyses/index';
import type { Session } from '../sessions/session';

/** Sites per warning shown as separate problems; the rest become related locations. */
export const MAX_SITES_PER_WARNING = 3;

export interface DiagnosticEntry {
  readonly site: SiteInfo;
  readonly severity: Severity;
  readonly message: string;
  readonly kind: WarningKind;
  readonly warningId: string;
  readonly sessionId: string;
  /** Other sites of the same warning. */
  readonly related: readonly SiteInfo[];
}

export function contributesDiagnostics(session: Session): boolean {
  return session.ended?.cause !== 'detached';
}

function siteKey(s: SiteInfo): string {
  return `${s.file}:${s.line}:${s.column}`;
}

export function diagnosticEntries(sessions: readonly Session[]): DiagnosticEntry[] {
  const out: DiagnosticEntry[] = [];
  const several = sessions.filter(contributesDiagnostics).length > 1;
  for (const session of sessions) {
    if (!contributesDiagnostics(session)) continue;
    for (const w of session.warnings) out.push(...entriesOf(session, w, several));
  }
  return out;
}

function entriesOf(session: Session, w: Warning, nameSession: boolean): DiagnosticEntry[] {
  const distinct: SiteInfo[] = [];
  const seen = new Set<string>();
  for (const s of w.sites) {
    const k = siteKey(s);
    if (!seen.has(k)) {
      seen.add(k);
      distinct.push(s);
    }
  }
  const shown = distinct.slice(0, MAX_SITES_PER_WARNING);
  const message = `${w.title}${nameSession ? ` [${session.title}]` : ''}\n${w.explanation}`;
  return shown.map((site) => ({
    site,
    severity: w.severity,
    message,
    kind: w.kind,
    warningId: w.id,
    sessionId: session.id,
    related: distinct.filter((s) => s !== site).slice(0, 5),
  }));
}
