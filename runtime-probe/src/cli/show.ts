// `busscope show <trace>`: a trace at a glance — the app, what was lost, its buses and busiest
// event types with dispatch counts and rates, the slowest handlers, and the analyses' warnings
// (complete, default thresholds; `busscope check` for exit codes and thresholds).

import { analyze, WARNING_KINDS, type Warning } from '../analysis/analyses/index';
import type { Model } from '../analysis/model/index';
import { siteLocation } from './site-path';

const TOP_TYPES = 15;
const TOP_HANDLERS = 10;

function table(rows: readonly (readonly string[])[], rightAligned: readonly number[]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 && !rightAligned.includes(i) ? c : rightAligned.includes(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd(),
  );
}

function n(v: number): string {
  return Math.round(v).toLocaleString('en-US');
}

function ms(v: number): string {
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

function rate(count: number, spanMs: number): string {
  return spanMs > 0 ? (count / (spanMs / 1000)).toFixed(1) : '-';
}

export function formatShow(model: Model, file: string, cwd: string, warnings: readonly Warning[] = analyze(model)): string {
  const out: string[] = [];
  const info = model.sessionInfo;
  const from = info.attachedAt ?? 0;
  const span = Math.max(0, model.now - from);
  out.push(`Trace   ${file}`);
  const app = info.app;
  out.push(
    `App     ${app === null ? '(no welcome: not a complete trace)' : `${app.name} (pid ${app.pid}, ${app.runtime})`}` +
      `${info.probeVersion !== null ? `, probe ${info.probeVersion}` : ''}${info.config !== null ? `, detail ${info.config.detail}` : ''}`,
  );
  out.push(`Span    ${(span / 1000).toFixed(1)} s of record time${from > 0 ? ` (from ${(from / 1000).toFixed(1)} s, when recording began)` : ''}`);
  out.push(
    `Totals  ${n(model.totalDispatches)} dispatches (${rate(model.totalDispatches, span)}/s), ${n(model.totalHandlerCalls)} handler calls, ` +
      `${n(model.subscriptions.size)} subscriptions kept`,
  );
  const d = model.drops;
  out.push(
    d.records === 0 && d.dispatches === 0
      ? 'Drops   none'
      : `Drops   ${n(d.records)} records, ${n(d.dispatches)} dispatches lost (buffer full ${n(d.byReason['buffer-full'])}, slow client ${n(d.byReason['slow-client'])})`,
  );

  const buses = [...model.buses.values()];
  out.push('', `Buses (${buses.length})`);
  if (buses.length > 0) {
    const rows = [['  BUS', 'TYPES', 'LISTENERS', 'DISPATCHES', 'PER SEC', 'STATE']];
    for (const b of buses) {
      let listeners = 0;
      for (const t of b.types.values()) listeners += t.registeredCount;
      rows.push([
        `  ${b.name}`,
        n(b.types.size),
        n(listeners),
        n(b.dispatches),
        rate(b.dispatches, span),
        b.disposedAt === null ? 'live' : `disposed at ${(b.disposedAt / 1000).toFixed(1)} s`,
      ]);
    }
    out.push(...table(rows, [1, 2, 3, 4]));
  }

  const types = [...model.allTypes()].sort((a, b) => b.dispatches - a.dispatches || a.name.localeCompare(b.name));
  out.push('', `Event types (${types.length}${types.length > TOP_TYPES ? `, busiest ${TOP_TYPES}` : ''})`);
  if (types.length > 0) {
    const rows = [['  BUS', 'TYPE', 'LISTENERS', 'DISPATCHES', 'PER SEC', 'UNHEARD']];
    for (const t of types.slice(0, TOP_TYPES)) {
      rows.push([`  ${t.busState.name}`, t.name, n(t.registeredCount), n(t.dispatches), rate(t.dispatches - t.dispatchesBeforeAttach, span), n(t.unheard)]);
    }
    out.push(...table(rows, [2, 3, 4, 5]));
  }

  const handlers = [...model.subscriptions.values()]
    .filter((s) => s.durations !== null && s.durations.count > 0)
    .sort((a, b) => (b.durations?.quantile(0.95) ?? 0) - (a.durations?.quantile(0.95) ?? 0) || (b.durations?.max ?? 0) - (a.durations?.max ?? 0));
  out.push('', `Slowest handlers${handlers.length > TOP_HANDLERS ? ` (${TOP_HANDLERS} of ${handlers.length})` : ` (${handlers.length})`}`);
  if (handlers.length === 0) out.push('  none timed (record at detail `handlers` to time them)');
  else {
    const rows = [['  P95 MS', 'MAX MS', 'CALLS', 'HANDLER', 'SITE']];
    for (const s of handlers.slice(0, TOP_HANDLERS)) {
      const h = s.durations!;
      rows.push([
        `  ${ms(h.quantile(0.95))}`,
        ms(h.max),
        n(h.count),
        `${s.type.busState.name}/${s.type.name}${s.label !== null ? ` ${s.label}` : ''}`,
        s.site === null ? '' : siteLocation(s.site, cwd),
      ]);
    }
    out.push(...table(rows, [0, 1, 2]));
  }

  out.push('', `Warnings (${warnings.length})`);
  for (const kind of WARNING_KINDS) {
    const list = warnings.filter((w) => w.kind === kind);
    if (list.length === 0) continue;
    out.push(`  ${kind} (${list.length})`);
    for (const w of list) out.push(`    ${w.sites.length > 0 ? `${siteLocation(w.sites[0], cwd)}: ` : ''}${w.severity}: ${w.title}`);
  }
  if (warnings.length === 0) out.push('  none');
  return out.join('\n') + '\n';
}
