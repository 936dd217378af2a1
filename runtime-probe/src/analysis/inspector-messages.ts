// The ONE definition of the messages between the extension (inspector host) and the inspector
// webview. Both sides import this module; nothing here touches the DOM or `vscode`, so it also
// compiles into the extension bundle and into plain Node tests.
//
// Conversation:
//   webview → host  `ready` (carries the state the webview restored, if any)
//   host → webview  `snapshot` (everything the panel shows, for the session it shows)
//   host → webview  `delta` (batched changes, at most ~30 per second, only while the panel is visible)
//   host → webview  `session` (phase changes: connecting / attached / paused / detached / dropped records)
//   webview → host  requests (`select`, `openSource`, `focusWarning`, `setFollow`, `rangeStats`,
//                   `exportRangeStats`, `selectSession`, `runCommand`, `requestSnapshot`,
//                   `toggleBreakpoint`)
//   host → webview  `breakpoints` (the workspace's event breakpoint types: after every snapshot and
//                   whenever they change; never sent when the host has no breakpoints)
//   host → webview  answers: `details` (to `select`: the model's "why didn't it run?" and dispatch
//                   details), `rangeStats`, `exported`
// A delta whose `seq` is not the previous one + 1 means the webview missed data: it sends
// `requestSnapshot` and ignores deltas until the next snapshot arrives.
// Flow control: the webview answers each delta it applied with `applied`; the host keeps at most a
// couple of deltas unanswered, so an answer (`details`) never queues behind a backlog of deltas a
// slow page has not read yet. A host message the webview drops (fails the guard, stale, arrives
// while it waits for a snapshot) is reported back with `dropped`, and the host logs it.
//
// Entities are the model's own views (BusView, TypeView, SubscriptionView, Warning, WhyReport,
// RangeStatistics): this module adds only what is about the conversation — timeline columns,
// session phases, deltas, selection. Identities are the model's: buses by the probe's bus id,
// event types by the model's type index (subscriptions and warnings name them by bus + name),
// subscriptions by id, dispatches by sequence number, sites by `file:line:column`.
// Everything is JSON-safe (plain arrays, no typed arrays).

import type { BusView, SubscriptionView, ThreadView, TypeView } from './model/views';
import type { DispatchView, RangeStatistics } from './model/queries';
import type { Warning, WarningKind, Severity, TypeRef } from './analyses/warning';
import type { WhyReason, WhyReport } from './analyses/explain';
import type { SiteInfo } from '../protocol/records';
import { assertNever } from '../protocol/assert-never';

/** Bumped when a message changes shape; the host refuses to talk to a webview of another version. */
export const INSPECTOR_MESSAGES_VERSION = 1;

// ---------------------------------------------------------------------------------------------
// Entities: the model's own JSON-safe views (one definition, in ./model and ./analyses).

export type {
  ThreadView,
  BusView,
  SubscriptionView,
  TypeView,
  DispatchView,
  RangeStatistics,
  Warning,
  WarningKind,
  Severity,
  TypeRef,
  WhyReason,
  WhyReport,
  SiteInfo,
};

/**
 * A bus as the inspector gets it: the model's view, plus the group the host draws it in (a class
 * group's key, the libraries group's, or absent for a bus of its own; see graph/busGroups.ts).
 */
export type InspectorBusView = BusView & { readonly group?: string };

/**
 * One group of buses, with figures summed over all its instances: a class with two or more
 * instances ("Socket ×40,000") or the libraries group. The host sends these instead of a view per
 * emitter; the instances come only while the user has the group expanded (`expandGroups`), a page
 * at a time. Figures other than `buses` are refreshed every couple of seconds.
 */
export interface BusGroupView {
  /** `LIBRARIES_GROUP` or `classGroupKey(className, library)`. */
  readonly key: string;
  /** "Socket ×40,000" or "libraries". */
  readonly label: string;
  /** null for the libraries group. */
  readonly className: string | null;
  readonly library: boolean;
  readonly buses: number;
  readonly disposed: number;
  readonly types: number;
  readonly listeners: number;
  readonly dispatches: number;
  readonly ratePerSecond: number;
}

/** A site the timeline's `site` column refers to (the model's site index). */
export interface SiteView {
  readonly index: number;
  readonly site: SiteInfo;
}

/** What the warnings say about a subscription, as flags the graph colours by (derived in the webview). */
export type SubscriptionHealth = 'leak' | 'dead-owner' | 'starved' | 'never-called' | 'throwing' | 'slow';

// ---------------------------------------------------------------------------------------------
// Timeline columns: one array per field, all of equal length (`count`).

/** `flags` bits of a dispatch. */
export const DispatchFlag = {
  /** At least one handler threw. */
  error: 1,
  /** A nested dispatch inside it hit the bus's maxDepth (DispatchDepthError). */
  depthLimit: 2,
  /** Nobody was listening. */
  unheard: 4,
} as const;

export interface DispatchColumns {
  readonly count: number;
  readonly seq: readonly number[];
  readonly bus: readonly number[];
  readonly type: readonly number[];
  /** Record time, ms. */
  readonly start: readonly number[];
  /** ms. */
  readonly duration: readonly number[];
  readonly delivered: readonly number[];
  /** Consuming subscription id, 0 when nobody consumed. */
  readonly consumedBy: readonly number[];
  readonly depth: readonly number[];
  /** 0 for top-level dispatches. */
  readonly parentSeq: readonly number[];
  /** Dispatch site (model site index), -1 when not sampled. */
  readonly site: readonly number[];
  /** `DispatchFlag` bits. */
  readonly flags: readonly number[];
  /**
   * Error bound of `start`, µs (whole), 0 when exact: version-2 probes interpolate starts between
   * clock reads, and the timeline draws the bound where it is wide enough to matter.
   */
  readonly startBound: readonly number[];
  /**
   * Cross-thread events (issue: worker threads): the thread whose producer enqueued the dispatched
   * event, -1 for events dispatched on their own thread. Absent: no cross-thread event in the batch.
   */
  readonly fromThread?: readonly number[];
  /** When the producer enqueued it, ms on the session's clock; read only where `fromThread` ≥ 0. */
  readonly enqueuedAt?: readonly number[];
}

/** `flags` bits of a handler slice (the model's `HandlerFlag` values). */
export const HandlerSliceFlag = {
  consumed: 1,
  threw: 2,
} as const;

export interface HandlerColumns {
  readonly count: number;
  /** The dispatch the handler ran in. */
  readonly seq: readonly number[];
  readonly subscription: readonly number[];
  readonly start: readonly number[];
  readonly duration: readonly number[];
  readonly flags: readonly number[];
}

export type TimelineMarker =
  /** The probe dropped records (client too slow); `count` is exact. */
  | { readonly kind: 'drop'; readonly at: number; readonly count: number }
  /** The host did not forward dispatches to the webview (over its per-batch budget). */
  | { readonly kind: 'skipped'; readonly at: number; readonly count: number }
  /** A dispatch beyond maxDepth was refused. */
  | { readonly kind: 'depth-limit'; readonly at: number; readonly type: number; readonly seq: number };

// ---------------------------------------------------------------------------------------------
// Session

export type SessionPhase = 'empty' | 'connecting' | 'attached' | 'paused' | 'detached';

export interface SessionSummary {
  readonly id: string;
  /** "demo (pid 1234)" or a trace file name. */
  readonly label: string;
  readonly phase: SessionPhase;
}

/**
 * How complete the analyses' last run was: the near-miss name search has a work budget per run and
 * finishes over later runs, so until then some "did you mean…?" warnings may be missing.
 */
export interface AnalysisProgressView {
  readonly partial: boolean;
  readonly typesChecked: number;
  readonly typesToCheck: number;
}

/** The one wording of a partial analysis, for the Warnings tree and the inspector alike ('' when complete). */
export function analysisPartialText(progress: AnalysisProgressView | undefined): string {
  if (progress === undefined || !progress.partial) return '';
  return `Analysis partial: ${progress.typesChecked.toLocaleString('en-US')} of ${progress.typesToCheck.toLocaleString('en-US')} types checked for similar names so far; more warnings may follow.`;
}

export interface SessionView {
  readonly phase: SessionPhase;
  /** '' when phase is 'empty'. */
  readonly sessionId: string;
  readonly label: string;
  /** Why it is in this phase, in words ('app exited', 'paused at a breakpoint', …); may be ''. */
  readonly detail: string;
  /** Records the probe dropped in this session (exact count). */
  readonly droppedRecords: number;
  /** True for a trace opened from a file (never live). */
  readonly offline: boolean;
  /** A browser app's page: it comes back by a reload, and Accept Browser Apps (not attach) lets it in. */
  readonly browser?: boolean;
  /** Every session the inspector could show, for a picker. */
  readonly sessions: readonly SessionSummary[];
  /** The analyses' last run, when the host knows it (absent: complete). */
  readonly analysis?: AnalysisProgressView;
  /** The app's threads when more than the main thread reported buses (absent: main thread only). */
  readonly threads?: readonly ThreadView[];
}

// ---------------------------------------------------------------------------------------------
// Snapshot and deltas

/**
 * What the host left out so the webview stays bounded whatever the app's cardinality (100,000
 * event types): the webview says "N more types not shown" where it truncates. Absent: nothing.
 */
export interface OmittedCounts {
  /** Event types the model knows that the webview was not sent. */
  readonly types: number;
  /** The same, per bus (only buses with some left out). */
  readonly typesByBus: readonly { readonly bus: number; readonly count: number }[];
  /** Subscriptions (live or retained ended) not sent: of types not sent, or beyond the cap. */
  readonly subscriptions: number;
  /** Warnings not sent (the least severe beyond the cap). */
  readonly warnings: number;
}

export interface InspectorSnapshot {
  readonly session: SessionView;
  /** Record time (ms) of the newest record the model has seen. */
  readonly now: number;
  /** Buses of their own, the instances of expanded groups (a page each) and the buses of the types sent. */
  readonly buses: readonly InspectorBusView[];
  /** Every group of buses (absent from hosts that send every bus ungrouped). */
  readonly busGroups?: readonly BusGroupView[];
  readonly types: readonly TypeView[];
  /** Live subscriptions and the ended ones the model still retains. */
  readonly subscriptions: readonly SubscriptionView[];
  readonly warnings: readonly Warning[];
  /** Sites referenced by the dispatch columns. */
  readonly sites: readonly SiteView[];
  readonly dispatches: DispatchColumns;
  readonly handlers: HandlerColumns;
  readonly markers: readonly TimelineMarker[];
  /** Set when the host capped types, subscriptions or warnings (see FeedOptions). */
  readonly omitted?: OmittedCounts;
}

/** Type figures that change all the time, sent only for types whose figures changed. */
export interface TypeStatsColumns {
  readonly count: number;
  readonly index: readonly number[];
  readonly dispatches: readonly number[];
  readonly ratePerSecond: readonly number[];
  readonly liveSubscriptions: readonly number[];
  readonly unheard: readonly number[];
  readonly consumed: readonly number[];
  readonly handlerErrors: readonly number[];
  /** -1 when never dispatched. */
  readonly lastDispatchAt: readonly number[];
}

/** Subscription figures that change all the time, sent only for subscriptions whose figures changed. */
export interface SubscriptionStatsColumns {
  readonly count: number;
  readonly id: readonly number[];
  readonly calls: readonly number[];
  readonly consumed: readonly number[];
  readonly errors: readonly number[];
  /** -1 when never called. */
  readonly lastCalledAt: readonly number[];
  /** Handler timing; timedCalls 0 means no timing records (the other timing fields are then 0). */
  readonly timedCalls: readonly number[];
  readonly totalMs: readonly number[];
  readonly maxMs: readonly number[];
  readonly p95Ms: readonly number[];
  /**
   * Timed calls (handler records) behind `timedCalls`, which counts the calls they stand for: below
   * it when detail `handlers` timed a sample of the calls ("sampled 1 in timedCalls / sampledCalls").
   * Absent from hosts that predate sampling (every call timed).
   */
  readonly sampledCalls?: readonly number[];
}

export interface InspectorDelta {
  /** 1 for the first delta after a snapshot, then +1 each. */
  readonly seq: number;
  readonly now: number;
  /** New buses the webview shows, and sent buses whose name or group changed. */
  readonly buses?: readonly InspectorBusView[];
  /** New groups and groups whose figures changed. */
  readonly busGroups?: readonly BusGroupView[];
  /** Keys of groups that no longer exist (their buses changed side, or the class shrank to one). */
  readonly forgetBusGroups?: readonly string[];
  /** New types and types whose non-figure fields changed (full records). */
  readonly types?: readonly TypeView[];
  /**
   * Types the host stopped sending (by index): over its type cap, a type that became busy takes the
   * place of a quiet one. The webview forgets them (their subscriptions come in `forgetSubscriptions`).
   */
  readonly forgetTypes?: readonly number[];
  readonly typeStats?: TypeStatsColumns;
  /** New subscriptions and ones that ended (full records). */
  readonly subscriptions?: readonly SubscriptionView[];
  /** Subscriptions the model forgot (ended long ago): the webview forgets them too. */
  readonly forgetSubscriptions?: readonly number[];
  readonly subscriptionStats?: SubscriptionStatsColumns;
  /** Added or changed warnings. */
  readonly warnings?: readonly Warning[];
  /** Ids of warnings that no longer hold. */
  readonly clearedWarnings?: readonly string[];
  readonly sites?: readonly SiteView[];
  readonly dispatches?: DispatchColumns;
  readonly handlers?: HandlerColumns;
  readonly markers?: readonly TimelineMarker[];
  /** The new totals of what the host leaves out, when they changed. */
  readonly omitted?: OmittedCounts;
}

// ---------------------------------------------------------------------------------------------
// Selection and details

export type SelectionRef =
  | { readonly kind: 'bus'; readonly id: number }
  | { readonly kind: 'type'; readonly index: number }
  | { readonly kind: 'subscription'; readonly id: number }
  /** A site, by `file:line:column`. */
  | { readonly kind: 'site'; readonly key: string }
  | { readonly kind: 'dispatch'; readonly seq: number }
  /** An aggregated graph node: same-site subscriptions of one type (or of one collapsed bus). */
  | { readonly kind: 'group'; readonly key: string; readonly subscriptions: readonly number[] };

export interface HandlerCallView {
  readonly subscription: number;
  readonly label: string | null;
  readonly start: number;
  readonly duration: number;
  readonly consumed: boolean;
  readonly threw: boolean;
  /** The error message, when the model kept it for this dispatch. */
  readonly error: string | null;
}

export interface DispatchDetailsView {
  readonly dispatch: DispatchView;
  /** Handlers in the order they ran. */
  readonly handlers: readonly HandlerCallView[];
  /** JSON preview of the payload when the probe captured it; null otherwise. */
  readonly payloadPreview: string | null;
  /** The OpenTelemetry trace id the probe recorded for this dispatch (busscope-probe/otel active), if any. */
  readonly traceId?: string;
}

export type DetailsView =
  /** The model's answer to "why didn't it run?" (`explainSubscription`). */
  | { readonly kind: 'subscription'; readonly id: number; readonly report: WhyReport }
  /** `dispatch` is null when the model no longer holds that dispatch. */
  | { readonly kind: 'dispatch'; readonly seq: number; readonly dispatch: DispatchDetailsView | null };

// ---------------------------------------------------------------------------------------------
// State the webview persists (vscode.setState) and hands back in `ready`

export interface PersistedViewState {
  readonly v: 1;
  readonly sessionId: string;
  readonly selection: SelectionRef | null;
  readonly filterText: string;
  /** Bus name filter ('' = all buses). Names, not ids: ids change when the app restarts. */
  readonly busFilter: string;
  /** Bus names the user collapsed or expanded explicitly. */
  readonly collapsedBuses: readonly string[];
  readonly expandedBuses: readonly string[];
  readonly follow: boolean;
  /** Width of the timeline window, ms. */
  readonly timelineSpanMs: number;
  /** The timeline view when not following. */
  readonly timelineView: { readonly from: number; readonly to: number } | null;
  readonly brush: { readonly from: number; readonly to: number } | null;
  readonly graphTransform: { readonly k: number; readonly x: number; readonly y: number } | null;
  readonly focusedWarning: string;
}

// ---------------------------------------------------------------------------------------------
// The messages

export type HostToWebview =
  | { readonly type: 'snapshot'; readonly snapshot: InspectorSnapshot }
  | { readonly type: 'delta'; readonly delta: InspectorDelta }
  | { readonly type: 'session'; readonly session: SessionView }
  | { readonly type: 'details'; readonly details: DetailsView }
  /** Select and show something (e.g. "Show in Inspector" from a tree view). */
  | { readonly type: 'reveal'; readonly target: SelectionRef }
  /** Answer to `rangeStats`: the model's statistics of the brushed range. */
  | { readonly type: 'rangeStats'; readonly requestId: number; readonly stats: RangeStatistics | null }
  /** Answer to `exportRangeStats`. */
  | { readonly type: 'exported'; readonly ok: boolean; readonly message: string }
  /** The event types that break when dispatched (on every bus), sorted. */
  | { readonly type: 'breakpoints'; readonly types: readonly string[] };

/** Commands the empty and detached states offer as buttons; the host maps them to VS Code commands. */
export type InspectorCommand = 'attach' | 'runDemo' | 'openTrace' | 'acceptBrowserApps';

export type WebviewToHost =
  | { readonly type: 'ready'; readonly version: number; readonly state: PersistedViewState | null }
  | { readonly type: 'requestSnapshot'; readonly reason: 'gap' | 'user' }
  | { readonly type: 'select'; readonly target: SelectionRef | null }
  | { readonly type: 'openSource'; readonly file: string; readonly line: number; readonly column: number }
  | { readonly type: 'focusWarning'; readonly warningId: string | null }
  | { readonly type: 'setFollow'; readonly follow: boolean }
  | { readonly type: 'selectSession'; readonly sessionId: string }
  /** Statistics of [from, to] (record time, ms); answered by `rangeStats` with the same requestId. */
  | { readonly type: 'rangeStats'; readonly requestId: number; readonly from: number; readonly to: number }
  /** Save the statistics of [from, to] (the host asks where). */
  | { readonly type: 'exportRangeStats'; readonly from: number; readonly to: number }
  | { readonly type: 'runCommand'; readonly command: InspectorCommand }
  /** Add or remove the event breakpoint "break when `eventType` is dispatched" (every bus). */
  | { readonly type: 'toggleBreakpoint'; readonly eventType: string }
  /**
   * The groups of buses the user has expanded (`groups`), and those whose "+N more" was opened
   * (`more`): the host sends their instances, and records expanded library emitters at full detail
   * (`focus`); a key left out collapses (and withdraws) it. Sent before `ready` and on each change.
   */
  | { readonly type: 'expandGroups'; readonly groups: readonly string[]; readonly more: readonly string[] }
  /** The webview applied the delta with this `seq` (flow control: the host sends the next ones). */
  | { readonly type: 'applied'; readonly seq: number }
  /** Put a dispatch's trace id on the clipboard (the webview cannot reach the system clipboard itself). */
  | { readonly type: 'copyTraceId'; readonly traceId: string }
  /** The webview dropped a host message: its `type` (as received, cut short) and why, for the host's log. */
  | { readonly type: 'dropped'; readonly message: string; readonly reason: string };

/** Longest `message` / `reason` a `dropped` report may carry. */
export const MAX_DROPPED_MESSAGE_LENGTH = 64;
export const MAX_DROPPED_REASON_LENGTH = 300;

/** Longest trace id a `copyTraceId` may carry (the probe records at most this long). */
export const MAX_TRACE_ID_LENGTH = 64;
/** What a trace id may contain: visible ASCII, no spaces (W3C's are 32 lowercase hex digits). */
const TRACE_ID = /^[\x21-\x7e]+$/;

/** Longest event type name a `toggleBreakpoint` may carry (the probe's own limit). */
export const MAX_BREAKPOINT_TYPE_LENGTH = 1024;

export interface Disposable {
  dispose(): void;
}

/** What the renderer talks through: VS Code's webview API in the panel, a fake host in tests. */
export interface InspectorPort {
  postMessage(msg: WebviewToHost): void;
  onMessage(listener: (msg: HostToWebview) => void): Disposable;
}

// ---------------------------------------------------------------------------------------------
// Guards (both sides receive untyped data from the other)

const HOST_TYPES: ReadonlySet<string> = new Set<HostToWebview['type']>([
  'snapshot',
  'delta',
  'session',
  'details',
  'reveal',
  'rangeStats',
  'exported',
  'breakpoints',
]);
const WEBVIEW_TYPES: ReadonlySet<string> = new Set<WebviewToHost['type']>([
  'ready',
  'requestSnapshot',
  'select',
  'openSource',
  'focusWarning',
  'setFollow',
  'selectSession',
  'rangeStats',
  'exportRangeStats',
  'runCommand',
  'toggleBreakpoint',
  'expandGroups',
  'applied',
  'copyTraceId',
  'dropped',
]);

function hasType(value: unknown, types: ReadonlySet<string>): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string' && types.has((value as { type: string }).type);
}

export function isHostToWebview(value: unknown): value is HostToWebview {
  return hasType(value, HOST_TYPES);
}

/** Structural check of a webview request, strict enough that the host can act on it safely. */
export function isWebviewToHost(value: unknown): value is WebviewToHost {
  if (!hasType(value, WEBVIEW_TYPES)) return false;
  const m = value as WebviewToHost;
  switch (m.type) {
    case 'openSource':
      return typeof m.file === 'string' && m.file.length > 0 && Number.isInteger(m.line) && m.line >= 1 && Number.isInteger(m.column) && m.column >= 1;
    case 'ready':
      return typeof m.version === 'number';
    case 'selectSession':
      return typeof m.sessionId === 'string';
    case 'focusWarning':
      return m.warningId === null || typeof m.warningId === 'string';
    case 'setFollow':
      return typeof m.follow === 'boolean';
    case 'runCommand':
      return m.command === 'attach' || m.command === 'runDemo' || m.command === 'openTrace' || m.command === 'acceptBrowserApps';
    case 'select':
      return m.target === null || isSelectionRef(m.target);
    case 'rangeStats':
      return Number.isInteger(m.requestId) && Number.isFinite(m.from) && Number.isFinite(m.to) && m.to >= m.from;
    case 'exportRangeStats':
      return Number.isFinite(m.from) && Number.isFinite(m.to) && m.to >= m.from;
    case 'requestSnapshot':
      return m.reason === 'gap' || m.reason === 'user';
    case 'toggleBreakpoint':
      return typeof m.eventType === 'string' && m.eventType.length > 0 && m.eventType.length <= MAX_BREAKPOINT_TYPE_LENGTH;
    case 'expandGroups':
      return isKeyList(m.groups) && isKeyList(m.more);
    case 'applied':
      return Number.isSafeInteger(m.seq) && m.seq >= 1;
    case 'copyTraceId':
      return typeof m.traceId === 'string' && m.traceId.length > 0 && m.traceId.length <= MAX_TRACE_ID_LENGTH && TRACE_ID.test(m.traceId);
    case 'dropped':
      return (
        typeof m.message === 'string' &&
        m.message.length <= MAX_DROPPED_MESSAGE_LENGTH &&
        typeof m.reason === 'string' &&
        m.reason.length <= MAX_DROPPED_REASON_LENGTH
      );
    default:
      return assertNever(m, 'message');
  }
}

/** Longest list of group keys an `expandGroups` may carry (the webview has far fewer groups). */
export const MAX_EXPANDED_GROUPS = 10_000;

function isKeyList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.length <= MAX_EXPANDED_GROUPS && value.every((k) => typeof k === 'string' && k.length <= 4096);
}

/** A selection the host may look up: a known kind with the fields of that kind (bounded). */
function isSelectionRef(value: unknown): value is SelectionRef {
  if (typeof value !== 'object' || value === null) return false;
  const t = value as { kind?: unknown; id?: unknown; index?: unknown; seq?: unknown; key?: unknown; subscriptions?: unknown };
  const int = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
  const key = (v: unknown) => typeof v === 'string' && v.length <= 4096;
  switch (t.kind) {
    case 'bus':
    case 'subscription':
      return int(t.id);
    case 'type':
      return int(t.index);
    case 'dispatch':
      return int(t.seq);
    case 'site':
      return key(t.key);
    case 'group':
      return key(t.key) && Array.isArray(t.subscriptions) && t.subscriptions.length <= 1_000_000 && t.subscriptions.every(int);
    default:
      return false;
  }
}

/** What a rejected message was, for a log line: its `type` when it has a string one (cut short), else its kind. */
export function describeMessage(value: unknown): string {
  if (typeof value !== 'object' || value === null) return value === null ? 'null' : typeof value;
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') return 'an object without a type';
  return JSON.stringify(type.length > 40 ? `${type.slice(0, 40)}…` : type);
}

export { assertNever };

// ---------------------------------------------------------------------------------------------
// Helpers both sides use

/** Columns being built: every column a plain, growable array (postMessage serialises them as JSON). */
export type ColumnsBuilder<C> = { -readonly [K in keyof C]: K extends 'count' ? number : number[] };

export function emptyDispatchColumns(): ColumnsBuilder<DispatchColumns> {
  return {
    count: 0,
    seq: [],
    bus: [],
    type: [],
    start: [],
    duration: [],
    delivered: [],
    consumedBy: [],
    depth: [],
    parentSeq: [],
    site: [],
    flags: [],
    startBound: [],
  };
}

export function emptyHandlerColumns(): ColumnsBuilder<HandlerColumns> {
  return { count: 0, seq: [], subscription: [], start: [], duration: [], flags: [] };
}

export function emptySession(sessions: readonly SessionSummary[] = []): SessionView {
  return { phase: 'empty', sessionId: '', label: '', detail: '', droppedRecords: 0, offline: false, sessions };
}

export function sameSelection(a: SelectionRef | null, b: SelectionRef | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'bus':
      return a.id === (b as typeof a).id;
    case 'type':
      return a.index === (b as typeof a).index;
    case 'subscription':
      return a.id === (b as typeof a).id;
    case 'site':
      return a.key === (b as typeof a).key;
    case 'dispatch':
      return a.seq === (b as typeof a).seq;
    case 'group':
      return a.key === (b as typeof a).key;
    default:
      return assertNever(a, 'selection');
  }
}
