// `--fail-on`: which warnings make `check` exit 1. A comma-separated list of severities and warning
// kinds: a warning fails when its kind is listed or its severity is at least a listed severity
// (`warning` = warnings and errors). `none` never fails (report only).

import { WARNING_KINDS, type Severity, type Warning, type WarningKind } from '../analysis/analyses/index';

export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];

export interface FailOn {
  /** Fails at this severity or above; null: no severity listed. */
  readonly severity: Severity | null;
  readonly kinds: readonly WarningKind[];
}

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Parses `--fail-on`; a TypeError names what is wrong (the CLI reports it as a usage error). */
export function parseFailOn(text: string): FailOn {
  const items = text.split(',').map((s) => s.trim());
  if (items.length === 1 && items[0] === 'none') return { severity: null, kinds: [] };
  let severity: Severity | null = null;
  const kinds: WarningKind[] = [];
  for (const item of items) {
    if ((SEVERITIES as readonly string[]).includes(item)) {
      const s = item as Severity;
      if (severity === null || RANK[s] > RANK[severity]) severity = s;
    } else if ((WARNING_KINDS as readonly string[]).includes(item)) {
      if (!kinds.includes(item as WarningKind)) kinds.push(item as WarningKind);
    } else {
      throw new TypeError(
        `--fail-on takes none, a severity (${SEVERITIES.join(', ')}) or warning kinds (${WARNING_KINDS.join(', ')}), comma-separated (got "${item}")`,
      );
    }
  }
  return { severity, kinds };
}

export function fails(failOn: FailOn, w: Warning): boolean {
  return failOn.kinds.includes(w.kind) || (failOn.severity !== null && RANK[w.severity] <= RANK[failOn.severity]);
}

/** `--fail-on` as it reads back (`warning`, `listener-growth,error`, `none`). */
export function failOnText(failOn: FailOn): string {
  const parts = [...(failOn.severity === null ? [] : [failOn.severity]), ...failOn.kinds];
  return parts.length === 0 ? 'none' : parts.join(',');
}
