// The details pane: what the selected thing is, its figures, and — for a subscription — the
// model's answer to "why didn't it run?" (`explainSubscription`) in plain words. Dispatches show
// their handlers in the order they ran, who consumed the event, and the payload when captured.

import type {
  DispatchDetailsView,
  SelectionRef,
  SiteInfo,
  SubscriptionHealth,
  SubscriptionView,
  WhyReason,
  WhyReport,
} from '../../../runtime-probe/src/analysis/inspector-messages';
import { DispatchFlag, HandlerSliceFlag } from '../../../runtime-probe/src/analysis/inspector-messages';
import { siteKey, type InspectorStore } from '../store/inspectorStore';
import { clear, h } from '../ui/dom';
import { fmtBound, fmtInt, fmtMs, fmtRate, fmtSampleEvery, fmtTime, plural } from '../ui/format';

export interface DetailsEvents {
  select(ref: SelectionRef): void;
  open(site: SiteInfo): void;
  /** Add or remove the event breakpoint on this type (every bus). */
  toggleBreakpoint(type: string): void;
  /** Put a dispatch's OpenTelemetry trace id on the clipboard (through the host). */
  copyTraceId(traceId: string): void;
}

export interface DetailsInput {
  readonly selection: SelectionRef | null;
  /** The host's answer for the selected subscription; 'pending' until it arrives. */
  readonly report: WhyReport | 'pending' | null;
  readonly dispatch: DispatchDetailsView | 'pending' | null;
  /** Record time shown as 0 (the session's first retained record). */
  readonly origin: number;
  /** Event types that break when dispatched; null when the host offers no event breakpoints. */
  readonly breakpoints: ReadonlySet<string> | null;
}

export const HEALTH_TEXT: Record<SubscriptionHealth, string> = {
  leak: 'possible leak',
  'dead-owner': 'owner is gone',
  starved: 'starved (consumed before its turn)',
  'never-called': 'its event is never dispatched',
  throwing: 'throws',
  slow: 'slow',
};

const END_TEXT: Record<string, string> = {
  dispose: 'disposed',
  once: 'once: ran and removed',
  signal: 'aborted by its signal',
  owner: 'owner unsubscribed',
  'dead-owner': 'owner was dead',
  collected: 'owner was garbage-collected',
  clear: 'bus cleared',
  'missing-from-snapshot': 'gone from a later snapshot',
};

function basename(file: string): string {
  const i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return i >= 0 ? file.slice(i + 1) : file;
}

export class DetailsView {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;

  constructor(
    private readonly doc: Document,
    private readonly events: DetailsEvents,
  ) {
    this.body = h(doc, 'div', { class: 'details-body', 'data-testid': 'details', 'aria-live': 'polite' });
    this.element = h(doc, 'section', { class: 'details', 'aria-label': 'Details' }, h(doc, 'h2', { class: 'section-title' }, 'Details'), this.body);
  }

  render(store: InspectorStore, input: DetailsInput): void {
    clear(this.body);
    const sel = input.selection;
    this.body.setAttribute('data-kind', sel?.kind ?? '');
    if (!sel) {
      this.body.append(
        h(this.doc, 'p', { class: 'empty-note' }, 'Select a node in the graph, a dispatch in the timeline or a row in the node list to see its details here.'),
      );
      return;
    }
    switch (sel.kind) {
      case 'subscription':
        return this.subscription(store, sel.id, input);
      case 'type':
        return this.type(store, sel.index, input.breakpoints);
      case 'bus':
        return this.bus(store, sel.id);
      case 'site':
        return this.site(store, sel.key);
      case 'group':
        return this.group(store, sel.subscriptions);
      case 'dispatch':
        return this.dispatch(store, sel.seq, input);
    }
  }

  // --- pieces ------------------------------------------------------------------------------

  private title(text: string, sub?: string): void {
    this.body.append(h(this.doc, 'h3', { class: 'details-title' }, text));
    if (sub) this.body.append(h(this.doc, 'div', { class: 'details-sub' }, sub));
  }

  private facts(rows: [string, string | Node | null][]): void {
    const dl = h(this.doc, 'dl', { class: 'facts' });
    for (const [k, v] of rows) {
      if (v === null || v === '') continue;
      dl.append(h(this.doc, 'dt', {}, k), h(this.doc, 'dd', {}, v));
    }
    this.body.append(dl);
  }

  private sourceLink(site: SiteInfo): HTMLElement {
    const b = h(
      this.doc,
      'button',
      { type: 'button', class: 'link', title: `${site.file}:${site.line}:${site.column}`, 'data-file': site.file, 'data-line': site.line },
      `${basename(site.file)}:${site.line}${site.functionName ? ` (${site.functionName})` : ''}`,
    );
    b.addEventListener('click', () => this.events.open(site));
    return b;
  }

  /** The OpenTelemetry trace id, to look the trace up in a tracing backend, and its copy button. */
  private traceIdFact(traceId: string): HTMLElement {
    const copy = h(
      this.doc,
      'button',
      { type: 'button', class: 'copy-trace-id', 'data-testid': 'copy-trace-id', title: 'Copy the trace id, to find this dispatch in your tracing backend' },
      'Copy trace id',
    );
    copy.addEventListener('click', () => this.events.copyTraceId(traceId));
    return h(this.doc, 'span', { class: 'trace-id' }, h(this.doc, 'code', { 'data-testid': 'trace-id' }, traceId), ' ', copy);
  }

  private selectLink(text: string, ref: SelectionRef): HTMLElement {
    const b = h(this.doc, 'button', { type: 'button', class: 'link' }, text);
    b.addEventListener('click', () => this.events.select(ref));
    return b;
  }

  private healthChips(store: InspectorStore, id: number): HTMLElement | null {
    const health = [...store.healthOf(id)];
    if (health.length === 0) return null;
    return h(this.doc, 'div', { class: 'chips' }, ...health.map((x) => h(this.doc, 'span', { class: `chip health-${x}` }, HEALTH_TEXT[x])));
  }

  private subscriptionRow(store: InspectorStore, s: SubscriptionView): HTMLElement {
    const health = [...store.healthOf(s.id)].map((x) => HEALTH_TEXT[x]).join(', ');
    return h(
      this.doc,
      'li',
      { class: `sub-row${health ? ' has-health' : ''}` },
      this.selectLink(store.subscriptionLabel(s.id), { kind: 'subscription', id: s.id }),
      h(this.doc, 'span', { class: 'muted' }, ` p${s.priority} · ${fmtInt(s.calls)} calls${health ? ` · ${health}` : ''}`),
    );
  }

  private subscription(store: InspectorStore, id: number, input: DetailsInput): void {
    const s = store.subscriptions.get(id);
    if (!s) {
      this.title(`Subscription #${id}`, 'no longer held by the inspector');
      this.explanation(store, input.report);
      return;
    }
    const type = store.typeOfSubscription(s);
    this.title(store.subscriptionLabel(id), `subscription #${id} on ${store.busName(s.bus)} · ${s.type}`);
    const t = s.timing;
    this.facts([
      ['Event', type >= 0 ? this.selectLink(s.type, { kind: 'type', index: type }) : s.type],
      ['Owner', s.owner],
      ['Priority', String(s.priority)],
      [
        'Status',
        s.active
          ? s.once
            ? 'active (once)'
            : 'active'
          : `ended (${END_TEXT[s.endReason ?? ''] ?? s.endReason ?? 'unknown'}) at ${fmtTime(s.endedAt ?? 0, input.origin)}`,
      ],
      ['Subscribed', fmtTime(s.createdAt, input.origin)],
      ['Site', s.site ? this.sourceLink(s.site) : s.beforeProbe ? 'none: subscribed before the probe started' : 'unknown (stack capture off)'],
      ['Calls', `${fmtInt(s.calls)} · ${fmtRate(store.subscriptionRate(id))}`],
      [
        'Time',
        t
          ? `mean ${fmtMs(t.meanMs)} · p95 ${fmtMs(t.p95Ms)} · max ${fmtMs(t.maxMs)}${t.sampleEvery !== undefined ? ` · sampled 1 in ${fmtSampleEvery(t.sampleEvery)}` : ''}`
          : null,
      ],
      ['Errors', s.errors ? `${fmtInt(s.errors)}${s.lastError ? ` — last: ${s.lastError.message}` : ''}` : null],
      ['Consumed', s.consumed ? plural(s.consumed, 'dispatch', 'dispatches') : null],
    ]);
    const chips = this.healthChips(store, id);
    if (chips) this.body.append(chips);
    this.explanation(store, input.report);
  }

  private explanation(store: InspectorStore, report: WhyReport | 'pending' | null): void {
    const box = h(this.doc, 'div', { class: 'why', 'data-testid': 'why' }, h(this.doc, 'h4', {}, 'Why didn’t it run?'));
    if (report === 'pending') box.append(h(this.doc, 'p', { class: 'muted' }, 'Asking the model…'));
    else if (!report) box.append(h(this.doc, 'p', { class: 'muted' }, 'No answer available (no app attached).'));
    else {
      box.setAttribute('data-verdict', report.reasons[0]?.kind ?? '');
      box.append(h(this.doc, 'p', { class: 'why-headline' }, report.summary));
      const ul = h(this.doc, 'ul', { class: 'why-reasons' });
      report.reasons.forEach((r, k) => {
        // The first reason is the headline; list it only when it has more to say.
        if (k === 0 && r.text === report.summary && reasonDetails(r).length === 0 && r.kind !== 'consumed-earlier') return;
        ul.append(this.reason(store, r));
      });
      if (ul.childElementCount > 0) box.append(ul);
    }
    this.body.append(box);
  }

  private reason(store: InspectorStore, r: WhyReason): HTMLElement {
    const li = h(this.doc, 'li', { 'data-reason': r.kind }, h(this.doc, 'span', {}, r.text));
    const extra = reasonDetails(r);
    if (extra.length) li.append(h(this.doc, 'ul', { class: 'evidence' }, ...extra.map((e) => h(this.doc, 'li', {}, e))));
    if (r.kind === 'consumed-earlier') {
      for (const c of r.consumers.slice(0, 5))
        li.append(
          h(
            this.doc,
            'div',
            {},
            'consumed by ',
            this.selectLink(c.label ?? store.subscriptionLabel(c.subscriptionId), { kind: 'subscription', id: c.subscriptionId }),
          ),
        );
    }
    return li;
  }

  /** A real button (Tab, Enter, Space) whose pressed state says whether the type breaks now. */
  private breakpointToggle(type: string, breakpoints: ReadonlySet<string> | null): HTMLElement | null {
    if (breakpoints === null) return null;
    const on = breakpoints.has(type);
    const b = h(
      this.doc,
      'button',
      {
        type: 'button',
        class: `break-toggle${on ? ' on' : ''}`,
        'data-testid': 'break-toggle',
        'aria-pressed': on ? 'true' : 'false',
        title: on
          ? `The debugger stops when "${type}" is dispatched (any bus). Press to remove.`
          : `Stop in the debugger when "${type}" is dispatched (any bus).`,
      },
      on ? '● Breaks on dispatch' : '○ Break on dispatch',
    );
    b.addEventListener('click', () => this.events.toggleBreakpoint(type));
    return b;
  }

  private type(store: InspectorStore, index: number, breakpoints: ReadonlySet<string> | null): void {
    const t = store.types.get(index);
    if (!t) return this.title(`Type #${index}`, 'no longer known');
    this.title(t.type, `event type on ${store.busName(t.bus)}`);
    const toggle = this.breakpointToggle(t.type, breakpoints);
    if (toggle) this.body.append(h(this.doc, 'div', { class: 'details-actions' }, toggle));
    this.facts([
      ['Dispatches', `${fmtInt(t.dispatches)} · ${fmtRate(t.ratePerSecond)}`],
      ['Listeners', String(t.liveSubscriptions)],
      ['Unheard', t.unheard ? `${plural(t.unheard, 'dispatch', 'dispatches')} found no listener` : null],
      ['Consumed', t.consumed ? plural(t.consumed, 'dispatch', 'dispatches') : null],
      ['Max depth', t.maxDepth ? String(t.maxDepth) : null],
      ['Depth limit', t.depthLimitHits ? plural(t.depthLimitHits, 'hit') : null],
      ['Handler errors', t.handlerErrors ? fmtInt(t.handlerErrors) : null],
      ['Last dispatch', t.lastDispatchAt !== null ? fmtTime(t.lastDispatchAt, 0) : 'never'],
    ]);
    const subs = [...store.activeSubscriptions()].filter((s) => s.bus === t.bus && s.type === t.type).sort((a, b) => b.priority - a.priority || a.id - b.id);
    this.body.append(h(this.doc, 'h4', {}, `Subscribers, in the order they run (${subs.length})`));
    if (subs.length === 0) this.body.append(h(this.doc, 'p', { class: 'muted' }, 'Nobody listens to this event.'));
    else this.body.append(h(this.doc, 'ol', { class: 'sub-list' }, ...subs.slice(0, 40).map((s) => this.subscriptionRow(store, s))));
    if (t.dispatchSites.length) {
      this.body.append(h(this.doc, 'h4', {}, 'Dispatched from (sampled)'));
      this.body.append(h(this.doc, 'ul', { class: 'site-list' }, ...t.dispatchSites.map((site) => h(this.doc, 'li', {}, this.sourceLink(site)))));
    }
  }

  private bus(store: InspectorStore, id: number): void {
    const b = store.buses.get(id);
    this.title(store.busName(id), b?.disposedAt != null ? 'bus (disposed)' : 'bus');
    const types = [...store.types.values()].filter((t) => t.bus === id).sort((a, b) => a.type.localeCompare(b.type));
    let subs = 0;
    for (const s of store.activeSubscriptions()) if (s.bus === id) subs++;
    this.facts([
      ['Types', String(types.length)],
      ['Subscriptions', String(subs)],
      ['Dispatches', fmtInt(b?.dispatches ?? types.reduce((n, t) => n + t.dispatches, 0))],
      ['Depth limit', b?.depthLimitHits ? plural(b.depthLimitHits, 'hit') : null],
    ]);
    this.body.append(
      h(
        this.doc,
        'ul',
        { class: 'type-list' },
        ...types
          .slice(0, 60)
          .map((t) =>
            h(
              this.doc,
              'li',
              {},
              this.selectLink(t.type, { kind: 'type', index: t.index }),
              h(this.doc, 'span', { class: 'muted' }, ` ${t.liveSubscriptions} listeners · ${fmtRate(t.ratePerSecond)}`),
            ),
          ),
      ),
    );
  }

  private site(store: InspectorStore, key: string): void {
    const dispatched = [...store.types.values()].filter((t) => t.dispatchSites.some((s) => siteKey(s) === key));
    const subscribed = [...store.activeSubscriptions()].filter((s) => s.site && siteKey(s.site) === key);
    const site = dispatched[0]?.dispatchSites.find((s) => siteKey(s) === key) ?? subscribed[0]?.site ?? null;
    if (!site) return this.title(key, 'site no longer known');
    this.title(site.functionName ? `${site.functionName}()` : basename(site.file), dispatched.length ? 'dispatch site' : 'subscribe site');
    this.facts([['Source', this.sourceLink(site)]]);
    if (dispatched.length) {
      this.body.append(h(this.doc, 'h4', {}, 'Dispatches'));
      this.body.append(
        h(
          this.doc,
          'ul',
          {},
          ...dispatched.map((t) =>
            h(
              this.doc,
              'li',
              {},
              this.selectLink(t.type, { kind: 'type', index: t.index }),
              h(this.doc, 'span', { class: 'muted' }, ` ${fmtRate(t.ratePerSecond)}`),
            ),
          ),
        ),
      );
    }
    if (subscribed.length) {
      this.body.append(h(this.doc, 'h4', {}, `Subscriptions made here (${subscribed.length})`));
      this.body.append(h(this.doc, 'ol', { class: 'sub-list' }, ...subscribed.slice(0, 40).map((s) => this.subscriptionRow(store, s))));
    }
  }

  private group(store: InspectorStore, ids: readonly number[]): void {
    const subs = ids.map((id) => store.subscriptions.get(id)).filter((s): s is SubscriptionView => !!s);
    const first = subs[0];
    const site = first?.site ?? null;
    this.title(
      `${subs.length} subscriptions`,
      first ? `${store.busName(first.bus)} · ${first.type}${site ? ` · ${basename(site.file)}:${site.line}` : ''}` : undefined,
    );
    const calls = subs.reduce((n, s) => n + s.calls, 0);
    const errors = subs.reduce((n, s) => n + s.errors, 0);
    const owners = new Set(subs.map((s) => s.owner).filter(Boolean));
    this.facts([
      ['Subscribed at', site ? this.sourceLink(site) : null],
      ['Owners', owners.size ? `${owners.size} distinct` : null],
      ['Calls', fmtInt(calls)],
      ['Errors', errors ? fmtInt(errors) : null],
    ]);
    if (first) {
      const chips = this.healthChips(store, first.id);
      if (chips) this.body.append(chips);
    }
    this.body.append(h(this.doc, 'ol', { class: 'sub-list' }, ...subs.slice(0, 50).map((s) => this.subscriptionRow(store, s))));
    if (subs.length > 50) this.body.append(h(this.doc, 'p', { class: 'muted' }, `and ${subs.length - 50} more`));
  }

  private dispatch(store: InspectorStore, seq: number, input: DetailsInput): void {
    const tl = store.timeline;
    const i = tl.indexOfSeq(seq);
    const remote = input.dispatch !== 'pending' ? input.dispatch : null;
    const d = remote?.dispatch;
    if (i < 0 && !d) {
      this.title(`Dispatch #${seq}`, input.dispatch === 'pending' ? 'loading…' : 'no longer in the timeline');
      return;
    }
    const ring = tl.dispatches;
    const typeIndex = i >= 0 ? ring.typeIndex[i] : store.typeIndexOf(d!.bus, d!.type);
    const typeName = i >= 0 ? store.typeName(typeIndex) : d!.type;
    const bus = i >= 0 ? ring.bus[i] : d!.bus;
    const start = i >= 0 ? ring.start[i] : d!.start;
    const duration = i >= 0 ? ring.duration[i] : d!.duration;
    const depth = i >= 0 ? ring.depth[i] : d!.depth;
    const parent = i >= 0 ? ring.parentSeq[i] : d!.parentSeq;
    const delivered = i >= 0 ? ring.delivered[i] : d!.delivered;
    const consumedBy = i >= 0 ? ring.consumedBy[i] : d!.consumedBy;
    const flags = i >= 0 ? tl.flags[i] : 0;
    this.title(typeName, `dispatch #${seq} on ${store.busName(bus)}`);
    const site = d?.site ?? (i >= 0 ? store.sites.get(ring.siteIndex[i]) : undefined) ?? null;
    const notes = [
      flags & DispatchFlag.error ? 'a handler threw' : '',
      flags & DispatchFlag.depthLimit ? 'a nested dispatch hit the depth limit' : '',
      delivered === 0 ? 'nobody listened' : '',
    ]
      .filter(Boolean)
      .join('; ');
    this.facts([
      ['Event', typeIndex >= 0 ? this.selectLink(typeName, { kind: 'type', index: typeIndex }) : typeName],
      // Version-2 probes interpolate dispatch starts between clock reads: say how far off it may be.
      ['Started', `${fmtTime(start, input.origin)}${d?.startBound ? ` ${fmtBound(d.startBound)}` : ''}`],
      ['Took', fmtMs(duration)],
      ['Depth', depth > 0 ? `${depth} (nested)` : '0 (top level)'],
      ['Parent', parent ? this.selectLink(`dispatch #${parent}`, { kind: 'dispatch', seq: parent }) : null],
      ['Delivered to', plural(delivered, 'handler')],
      ['Consumed by', consumedBy ? this.selectLink(store.subscriptionLabel(consumedBy), { kind: 'subscription', id: consumedBy }) : 'nobody'],
      ['Notes', notes || null],
      ['Site', site ? this.sourceLink(site) : null],
      ['Trace id', remote?.traceId ? this.traceIdFact(remote.traceId) : null],
    ]);
    // Handlers in the order they ran: the host's list when it answered, else the local slices.
    const handlers: { sub: number; duration: number; consumed: boolean; threw: boolean; error: string | null }[] = [];
    if (remote?.dispatch)
      for (const c of remote.handlers) handlers.push({ sub: c.subscription, duration: c.duration, consumed: c.consumed, threw: c.threw, error: c.error });
    else if (i >= 0) {
      const hs = tl.handlers;
      const local: { sub: number; start: number; duration: number; consumed: boolean; threw: boolean; error: null }[] = [];
      tl.forEachHandlerInRange(start, start + duration, (hi) => {
        if (hs.seq[hi] !== seq) return;
        local.push({
          sub: hs.subscription[hi],
          start: hs.start[hi],
          duration: hs.duration[hi],
          consumed: (hs.flags[hi] & HandlerSliceFlag.consumed) !== 0,
          threw: (hs.flags[hi] & HandlerSliceFlag.threw) !== 0,
          error: null,
        });
      });
      local.sort((a, b) => a.start - b.start);
      handlers.push(...local);
    }
    this.body.append(h(this.doc, 'h4', {}, `Handlers, in the order they ran (${handlers.length})`));
    if (handlers.length === 0)
      this.body.append(h(this.doc, 'p', { class: 'muted' }, delivered === 0 ? 'No handler ran.' : 'Handler timings were not recorded for this dispatch.'));
    else
      this.body.append(
        h(
          this.doc,
          'ol',
          { class: 'handler-list', 'data-testid': 'dispatch-handlers' },
          ...handlers.map((c) =>
            h(
              this.doc,
              'li',
              { class: `${c.threw ? 'threw' : ''}${c.consumed ? ' consumed' : ''}` },
              this.selectLink(store.subscriptionLabel(c.sub), { kind: 'subscription', id: c.sub }),
              h(this.doc, 'span', { class: 'muted' }, ` ${fmtMs(c.duration)}${c.consumed ? ' · consumed it' : ''}${c.threw ? ' · threw' : ''}`),
              c.error ? h(this.doc, 'pre', { class: 'error-text' }, c.error) : null,
            ),
          ),
        ),
      );
    if (input.dispatch === 'pending') this.body.append(h(this.doc, 'p', { class: 'muted' }, 'Loading payload…'));
    else if (remote?.payloadPreview) this.body.append(h(this.doc, 'h4', {}, 'Payload'), h(this.doc, 'pre', { class: 'payload' }, remote.payloadPreview));
    else if (remote)
      this.body.append(
        h(
          this.doc,
          'p',
          { class: 'muted' },
          'Payload not captured (turn on the busscope.capturePayloads setting, or capturePayloads in the probe, to see it).',
        ),
      );
  }
}

/**
 * Extra lines a reason carries beyond its text. Every reason's `text` is already a full sentence,
 * so only the kinds with more to show are listed; new kinds show their text.
 */
function reasonDetails(r: WhyReason): string[] {
  switch (r.kind) {
    case 'near-miss-dispatched':
      return r.nearMisses.map((n) => `${n.type} on ${n.busName}: ${fmtInt(n.dispatches)} dispatches`);
    case 'handler-threw':
      return [r.lastMessage];
    default:
      return [];
  }
}
