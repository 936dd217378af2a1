// The host's side of the conversation with one inspector webview, without `vscode`: which session
// it shows, the ready handshake, snapshot then paced deltas (only while visible, and at most
// `maxDeltasInFlight` the page has not applied yet), answers to the webview's requests. The VS Code
// panel (panel.ts) supplies the effects; tests supply their own. Whatever is dropped or rejected on
// either side ends up in `effects.log` (the Busscope output channel).

import type { RangeStatistics } from '../../../runtime-probe/src/analysis/model/queries';
import type {
  DetailsView,
  HostToWebview,
  InspectorSnapshot,
  PersistedViewState,
  SelectionRef,
  SessionView,
  WebviewToHost,
} from '../../../runtime-probe/src/analysis/inspector-messages';
import {
  assertNever,
  describeMessage,
  emptyDispatchColumns,
  emptyHandlerColumns,
  emptySession,
  INSPECTOR_MESSAGES_VERSION,
  isWebviewToHost,
} from '../../../runtime-probe/src/analysis/inspector-messages';
import { parseGroupSelection } from '../../../webview/src/graph/busGroups';
import { busClassOf, LibraryClassifier } from '../../../runtime-probe/src/analysis/busGroups';
import { InspectorFeed, type FeedOptions } from './feed';
import { DeltaPump, SYSTEM_CLOCK, type PumpClock } from './pump';
import { DEFAULT_COMMANDS, type InspectorSessionInfo, type InspectorSource } from './source';

export interface HostEffects {
  post(msg: HostToWebview): void;
  openSource(file: string, line: number, column: number): void | Promise<void>;
  runCommand(commandId: string): void | Promise<void>;
  /** Saves the statistics somewhere the user picks; resolves to a message for the webview, or null when cancelled. */
  exportRangeStats(stats: RangeStatistics, suggestedName: string): Promise<string | null>;
  /** Puts text on the system clipboard (vscode.env.clipboard); absent where there is none. */
  copyText?(text: string): void | Promise<void>;
  /** For problems the user should hear about (a webview of another version). */
  showError(message: string): void;
  /** For what the user may need to know later: messages dropped or rejected on either side (the output channel). */
  log?(line: string): void;
}

export interface ConnectionOptions {
  readonly clock?: PumpClock;
  readonly feed?: Partial<FeedOptions>;
  /** Max deltas per second (default 30). */
  readonly maxDeltasPerSecond?: number;
  /** Re-send the selected subscription's explanation at most this often while data changes (ms). */
  readonly detailsRefreshMs?: number;
  /**
   * Deltas the page may have unapplied (default 2). VS Code's channel to a webview has no
   * back-pressure: without this bound a page slower than the pump builds a queue of deltas, and an
   * answer (`details`) posted behind them waits seconds. The feed coalesces what is held back.
   */
  readonly maxDeltasInFlight?: number;
  /** Without an `applied` for this long, one more delta goes anyway (and it is logged), ms. Default 2000. */
  readonly appliedTimeoutMs?: number;
}

export class InspectorConnection {
  private ready = false;
  private visible = true;
  private sessionId: string | null = null;
  private feed: InspectorFeed | null = null;
  private modelSubscription: (() => void) | null = null;
  private selection: SelectionRef | null = null;
  /** The groups the webview has expanded (`expandGroups`): kept across sessions, as the page keeps them. */
  private expansion: { groups: readonly string[]; more: readonly string[] } = { groups: [], more: [] };
  /** The feed's grouping version the expanded libraries' focus was computed from. */
  private focusedGrouping = -1;
  private lastDetailsAt = -Infinity;
  private lastSession = '';
  private pendingReveal: SelectionRef | null = null;
  /** Flow control: the last delta posted since the snapshot, the last one the page applied. */
  private postedDeltaSeq = 0;
  private appliedDeltaSeq = 0;
  private held = false;
  private heldTimer: unknown = null;
  private readonly pump: DeltaPump;
  private readonly clock: PumpClock;
  private readonly disposables: { dispose(): unknown }[] = [];
  private disposed = false;
  /** Messages posted (for tests and the status of the panel). */
  stats = { snapshots: 0, deltas: 0, details: 0, held: 0, rejected: 0 };

  constructor(
    private readonly source: InspectorSource,
    private readonly effects: HostEffects,
    private readonly options: ConnectionOptions = {},
  ) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.pump = new DeltaPump(() => this.sendDelta(), 1000 / (options.maxDeltasPerSecond ?? 30), this.clock);
    this.disposables.push(source.onDidChangeSessions(() => this.sessionsChanged()));
    if (source.onDidUpdateSession) {
      this.disposables.push(
        source.onDidUpdateSession((id) => {
          if (id === this.sessionId) this.pump.poke();
        }),
      );
    }
    if (source.breakpoints) this.disposables.push(source.breakpoints.onDidChange(() => this.sendBreakpoints()));
  }

  /** The session shown, if any. */
  get shownSessionId(): string | null {
    return this.sessionId;
  }

  get isReady(): boolean {
    return this.ready;
  }

  /** A message from the webview (untrusted: checked before use). */
  receive(raw: unknown): void {
    if (this.disposed) return;
    if (!isWebviewToHost(raw)) {
      this.stats.rejected++;
      this.log(`Inspector: rejected a message from the inspector page (${describeMessage(raw)}): not a request this extension knows, or a field out of range.`);
      return;
    }
    const msg: WebviewToHost = raw;
    switch (msg.type) {
      case 'ready':
        if (msg.version !== INSPECTOR_MESSAGES_VERSION) {
          this.effects.showError(
            `Busscope: the inspector page speaks message version ${msg.version}, this extension ${INSPECTOR_MESSAGES_VERSION}. Close and reopen the inspector.`,
          );
          return;
        }
        this.ready = true;
        this.showSession(this.pickSession(msg.state));
        return;
      case 'requestSnapshot':
        this.sendSnapshot();
        return;
      case 'select':
        this.selection = msg.target;
        this.focusSelection();
        this.sendDetails(true);
        return;
      case 'openSource':
        void this.effects.openSource(msg.file, msg.line, msg.column);
        return;
      case 'focusWarning':
      case 'setFollow':
        // The webview keeps these in its own persisted state; nothing to do here.
        return;
      case 'selectSession':
        if (this.source.sessions().some((s) => s.id === msg.sessionId)) this.showSession(msg.sessionId);
        return;
      case 'rangeStats':
        this.post({ type: 'rangeStats', requestId: msg.requestId, stats: this.feed ? this.feed.rangeStats(msg.from, msg.to) : null });
        return;
      case 'exportRangeStats':
        void this.exportRange(msg.from, msg.to);
        return;
      case 'runCommand':
        void this.effects.runCommand(this.source.commands?.[msg.command] ?? DEFAULT_COMMANDS[msg.command]);
        return;
      case 'toggleBreakpoint':
        void this.toggleBreakpoint(msg.eventType);
        return;
      case 'expandGroups':
        this.expansion = { groups: [...msg.groups], more: [...msg.more] };
        this.feed?.setExpansion(this.expansion.groups, this.expansion.more);
        this.focusSelection();
        this.pump.poke();
        return;
      case 'applied':
        this.deltaApplied(msg.seq);
        return;
      case 'copyTraceId':
        if (this.effects.copyText) void this.effects.copyText(msg.traceId);
        else this.log(`Inspector: no clipboard here to copy trace id ${msg.traceId} to`);
        return;
      case 'dropped':
        this.log(`Inspector: the inspector page dropped a ${msg.message} message: ${msg.reason}`);
        return;
      default:
        assertNever(msg, 'message');
    }
  }

  /** The panel became visible or hidden: deltas flow only while visible. */
  setVisible(visible: boolean): void {
    this.visible = visible;
    this.pump.setActive(visible && this.ready);
    if (visible) this.pump.poke();
  }

  /**
   * The page was discarded (a hidden panel without retainContextWhenHidden): nothing posted now
   * would arrive. The page that comes back says `ready` and gets a snapshot; a reveal waits for it.
   */
  pageDiscarded(): void {
    this.ready = false;
    this.pump.setActive(false);
    this.releaseHold();
  }

  /** Shows a session (or the most relevant one) in this panel. */
  show(sessionId?: string): void {
    if (sessionId !== undefined && sessionId !== this.sessionId) this.showSession(sessionId);
  }

  /** Selects something in the webview, as "Show in Inspector" does. */
  reveal(target: SelectionRef): void {
    if (this.ready) this.post({ type: 'reveal', target });
    else this.pendingReveal = target;
  }

  dispose(): void {
    this.disposed = true;
    this.selection = null;
    this.session()?.focusBuses?.([]);
    this.releaseHold();
    this.pump.dispose();
    this.modelSubscription?.();
    this.modelSubscription = null;
    for (const d of this.disposables.splice(0)) d.dispose();
  }

  // -------------------------------------------------------------------------------------------

  private session(): InspectorSessionInfo | undefined {
    return this.sessionId === null ? undefined : this.source.sessions().find((s) => s.id === this.sessionId);
  }

  private pickSession(state: PersistedViewState | null): string | null {
    const sessions = this.source.sessions();
    if (this.sessionId !== null && sessions.some((s) => s.id === this.sessionId)) return this.sessionId;
    if (state?.sessionId && sessions.some((s) => s.id === state.sessionId)) return state.sessionId;
    const active = this.source.activeSessionId?.();
    if (active && sessions.some((s) => s.id === active)) return active;
    return sessions[0]?.id ?? null;
  }

  private showSession(id: string | null): void {
    const session = id === null ? undefined : this.source.sessions().find((s) => s.id === id);
    if (session?.id !== this.sessionId || (session && this.feed?.model !== session.model)) {
      this.modelSubscription?.();
      this.modelSubscription = null;
      // The selection goes with the session shown: so does the focus it (and the expansion) asked for.
      this.selection = null;
      this.session()?.focusBuses?.([]);
      this.sessionId = session?.id ?? null;
      this.feed = session ? new InspectorFeed(session.model, this.options.feed, () => this.clock.now()) : null;
      this.feed?.setExpansion(this.expansion.groups, this.expansion.more);
      this.selection = null;
      if (session) this.modelSubscription = session.model.onDidChange(() => this.pump.poke());
    }
    this.sendSnapshot();
  }

  /**
   * A selected library bus (or a group of its listeners) is recorded at full detail while selected,
   * and so are the library emitters of the expanded libraries group (as the Subscriptions tree's
   * expansion does): the session's probe gets their buses (`focus`); another selection, none, or
   * collapsing withdraws them.
   */
  private focusSelection(): void {
    const s = this.session();
    if (s?.focusBuses === undefined) return;
    const t = this.selection;
    const buses = new Set<number>();
    if (this.feed !== null) {
      for (const id of this.feed.expandedLibraryBuses()) buses.add(id);
      this.focusedGrouping = this.feed.groupingVersion;
    }
    if (t?.kind === 'bus') buses.add(t.id);
    else if (t?.kind === 'group') {
      // A class node ("Socket ×500") or the libraries node stands for all its buses.
      const group = parseGroupSelection(t.key);
      if (group !== null) {
        const classifier = new LibraryClassifier();
        for (const b of s.model.buses.values()) {
          if (group.kind === 'libraries' ? classifier.isLibrary(b) : busClassOf(b.name)?.className === group.className) buses.add(b.id);
        }
      }
      for (const id of t.subscriptions) {
        const sub = s.model.subscriptions.get(id);
        if (sub !== undefined) buses.add(sub.bus);
      }
    }
    s.focusBuses([...buses]);
  }

  /** Posts the session's view, unless it is the one posted last. */
  private postSessionIfChanged(): void {
    const view = this.sessionView();
    const text = JSON.stringify(view);
    if (text === this.lastSession) return;
    this.lastSession = text;
    this.post({ type: 'session', session: view });
  }

  private sessionView(): SessionView {
    const sessions = this.source.sessions().map((s) => ({ id: s.id, label: s.label, phase: s.phase }));
    const s = this.session();
    if (!s) return emptySession(sessions);
    // The app's threads, once a worker thread reported buses (protocol 5).
    const threads = s.model.threadViews();
    const view: SessionView = {
      phase: s.phase,
      sessionId: s.id,
      label: s.label,
      detail: s.detail,
      droppedRecords: s.model.drops.records,
      offline: s.offline,
      ...(s.browser === true ? { browser: true } : {}),
      sessions,
      ...(threads !== undefined ? { threads } : {}),
    };
    // Only while partial (and only the counts), so a complete session's view stays the same text.
    const progress = s.analysisProgress?.();
    return progress?.partial === true
      ? { ...view, analysis: { partial: true, typesChecked: progress.typesChecked, typesToCheck: progress.typesToCheck } }
      : view;
  }

  private sendSnapshot(): void {
    if (!this.ready) return;
    const s = this.session();
    const snapshot: InspectorSnapshot =
      s && this.feed
        ? this.feed.snapshot(this.sessionView(), s.warnings())
        : {
            session: this.sessionView(),
            now: 0,
            buses: [],
            types: [],
            subscriptions: [],
            warnings: [],
            sites: [],
            dispatches: emptyDispatchColumns(),
            handlers: emptyHandlerColumns(),
            markers: [],
          };
    this.lastSession = JSON.stringify(snapshot.session);
    if (this.expansion.groups.length > 0) this.focusSelection();
    // Delta numbering restarts after a snapshot, and so does the count of unapplied ones.
    this.postedDeltaSeq = 0;
    this.appliedDeltaSeq = 0;
    this.releaseHold();
    this.post({ type: 'snapshot', snapshot });
    this.stats.snapshots++;
    if (this.pendingReveal) {
      this.post({ type: 'reveal', target: this.pendingReveal });
      this.pendingReveal = null;
    }
    this.sendBreakpoints();
    this.pump.setActive(this.visible);
  }

  private sendBreakpoints(): void {
    const bps = this.source.breakpoints;
    if (!bps || !this.ready) return;
    this.post({ type: 'breakpoints', types: [...bps.types()] });
  }

  private async toggleBreakpoint(type: string): Promise<void> {
    const bps = this.source.breakpoints;
    if (!bps) return;
    try {
      // The store fires its change event; that sends the new list (to every open inspector).
      await bps.toggle(type);
    } catch (e) {
      this.effects.showError(`Busscope: could not toggle the event breakpoint on "${type}": ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private sendDelta(): void {
    if (!this.ready || !this.visible) return;
    const s = this.session();
    if (!s || !this.feed) return;
    if (this.postedDeltaSeq - this.appliedDeltaSeq >= this.maxInFlight) {
      // The page has not caught up: hold (the feed keeps what changed for the next delta, and the
      // session's figures go with it); its `applied` pokes the pump again.
      this.hold();
      return;
    }
    this.postSessionIfChanged();
    const delta = this.feed.delta(s.warnings());
    // The grouping was rebuilt (new library emitters): an expanded libraries group focuses them too.
    if (this.feed.groupingVersion !== this.focusedGrouping && this.expansion.groups.length > 0) this.focusSelection();
    if (delta) {
      this.postedDeltaSeq = delta.seq;
      this.post({ type: 'delta', delta });
      this.stats.deltas++;
      this.sendDetails(false);
    }
  }

  private get maxInFlight(): number {
    return Math.max(1, this.options.maxDeltasInFlight ?? 2);
  }

  private hold(): void {
    if (this.held) return;
    this.held = true;
    this.stats.held++;
    const timeout = this.options.appliedTimeoutMs ?? 2000;
    this.heldTimer = this.clock.setTimeout(() => {
      this.heldTimer = null;
      if (!this.held) return;
      this.log(
        `Inspector: the inspector page has not applied delta ${this.appliedDeltaSeq + 1} of ${this.postedDeltaSeq} in ${timeout} ms; sending the next one anyway.`,
      );
      // Count the oldest as applied: one more delta goes, then it waits again.
      this.appliedDeltaSeq = this.postedDeltaSeq - this.maxInFlight + 1;
      this.releaseHold();
      this.pump.poke();
    }, timeout);
  }

  private releaseHold(): void {
    this.held = false;
    if (this.heldTimer !== null) this.clock.clearTimeout(this.heldTimer);
    this.heldTimer = null;
  }

  private deltaApplied(seq: number): void {
    // An `applied` from before the last snapshot can name a seq not posted since: ignore it.
    if (seq > this.postedDeltaSeq || seq <= this.appliedDeltaSeq) return;
    this.appliedDeltaSeq = seq;
    if (this.held) {
      this.releaseHold();
      this.pump.poke();
    }
  }

  /** `now`: the page asked (a selection): answer at once. Otherwise a refresh of the selected subscription. */
  private sendDetails(now: boolean): void {
    const sel = this.selection;
    if (!sel) return;
    if (!this.feed || !this.ready) {
      if (now) this.log(`Inspector: no details for the selected ${sel.kind}: ${this.ready ? 'no session is shown' : 'the inspector page is not ready'}.`);
      return;
    }
    // While data flows, the explanation of the selected subscription is kept current (≤ 1/s).
    if (!now && (sel.kind !== 'subscription' || this.clock.now() - this.lastDetailsAt < (this.options.detailsRefreshMs ?? 1000))) return;
    const s = this.session();
    const payloadOf = s?.payloadOf ? (seq: number) => s.payloadOf!(seq) : undefined;
    let details: DetailsView | null;
    try {
      details = this.feed.details(sel, payloadOf);
    } catch (e) {
      // The page waits for an answer: give it one that says what happened, rather than none.
      const message = e instanceof Error ? e.message : String(e);
      this.log(`Inspector: the model could not answer for the selected ${sel.kind}: ${message}`);
      if (sel.kind !== 'subscription') return;
      const text = `The model could not answer: ${message}`;
      details = {
        kind: 'subscription',
        id: sel.id,
        report: { subscriptionId: sel.id, found: false, summary: text, reasons: [{ kind: 'unknown-subscription', text }] },
      };
    }
    if (!details) return;
    this.lastDetailsAt = this.clock.now();
    this.post({ type: 'details', details });
    this.stats.details++;
  }

  private log(line: string): void {
    this.effects.log?.(line);
  }

  private sessionsChanged(): void {
    if (!this.ready) return;
    const sessions = this.source.sessions();
    if (this.sessionId !== null && !sessions.some((s) => s.id === this.sessionId)) {
      // The shown session went away: show another one, or the empty state.
      this.showSession(this.pickSession(null));
      return;
    }
    if (this.sessionId === null && sessions.length > 0) {
      this.showSession(this.pickSession(null));
      return;
    }
    this.postSessionIfChanged();
  }

  private async exportRange(from: number, to: number): Promise<void> {
    if (!this.feed) {
      this.post({ type: 'exported', ok: false, message: 'Nothing to export: no session is shown.' });
      return;
    }
    const stats = this.feed.rangeStats(from, to);
    try {
      const message = await this.effects.exportRangeStats(stats, `busscope-range-${Math.round(from)}-${Math.round(to)}.json`);
      if (message !== null) this.post({ type: 'exported', ok: true, message });
    } catch (e) {
      this.post({ type: 'exported', ok: false, message: `Export failed: ${e instanceof Error ? e.message : String(e)}` });
    }
  }

  private post(msg: HostToWebview): void {
    if (!this.disposed) this.effects.post(msg);
  }
}
