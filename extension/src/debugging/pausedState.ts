// Reading a paused app's Busscope state through a debugger. While the debuggee is stopped its event
// loop is frozen and the probe's socket is silent, so the state comes from evaluating the probe's
// snapshot function in the paused context (a DAP `evaluate`, or CDP `Debugger.evaluateOnCallFrame`).
//
// Transport: debuggers return evaluate results as display strings — js-debug quotes strings and
// cuts them at 100,000 characters in the REPL context. The state is therefore JSON, then base64
// (no quotes, backslashes or escapes to undo), fetched in chunks well under that budget; a big app's
// snapshot takes several round trips, a typical one a single one. No `vscode` here.
import { parseProbeSnapshot, ProtocolError, type ProbeSnapshot } from '../../../runtime-probe/src/protocol/index';

/** base64 characters fetched per evaluate (js-debug's REPL budget is 100,000 including quotes). */
export const PAUSED_STATE_CHUNK_CHARS = 60_000;
/** Larger states are refused (a snapshot is capped by the probe at 32 MiB of JSON). */
export const MAX_PAUSED_STATE_CHARS = 48 * 1024 * 1024;
/** Payload JSON kept for the event break being shown. */
export const PAUSED_PAYLOAD_PREVIEW_CHARS = 4096;

/** The event breakpoint the app is stopped at. */
export interface PausedEventBreak {
  readonly busId: number;
  readonly bus: string;
  readonly type: string;
  /** JSON of the payload (cut at PAUSED_PAYLOAD_PREVIEW_CHARS), or why it has none. */
  readonly payload: string;
}

/** What the paused app said about itself. */
export interface PausedState {
  /** The paused process (null outside Node). */
  readonly pid: number | null;
  /** The probe's snapshot (subscriptions, listener counts, dispatches in progress); null: no probe loaded (a page: not connected). */
  readonly snapshot: ProbeSnapshot | null;
  /** Set when stopped by an event breakpoint's `debugger` statement. */
  readonly eventBreak: PausedEventBreak | null;
  /** type → message of the error the type's break condition threw (the dispatch broke anyway). */
  readonly conditionErrors: Readonly<Record<string, string>>;
}

/** Evaluates an expression in the paused context and returns the debugger's text of the result. */
export type PausedEvaluate = (expression: string) => Promise<string>;

export class PausedStateError extends Error {
  override readonly name = 'PausedStateError';
}

const TRANSFER = "Symbol.for('busscope.pausedState')";

/** The first expression: builds the state in the debuggee; returns `B<base64>` or `N<length>` (fetch in chunks). */
export function pausedStateExpression(chunkChars = PAUSED_STATE_CHUNK_CHARS): string {
  // Plain ES2015 so it runs in any engine the bus runs in; every name is local to the arrow function.
  return `(() => {
  const g = globalThis;
  let text;
  try {
    // Node's probe; in a page, its open Busscope link (busscope-probe/browser keeps it on the shared runtime).
    const runtime = g[Symbol.for('busscope.runtime')];
    const pageLink = runtime && runtime.pageThreads ? runtime.pageThreads.link : undefined;
    const probe = g[Symbol.for('busscope.probe')] || pageLink;
    const breaks = g[Symbol.for('busscope.eventBreaks')];
    const hit = breaks && breaks.version === 1 ? breaks.current : null;
    let payload = null;
    if (hit) {
      try {
        payload = hit.payload === undefined ? 'undefined' : JSON.stringify(hit.payload);
        if (payload === undefined) payload = String(hit.payload);
      } catch (e) {
        payload = '(not JSON: ' + String(e && e.message || e) + ')';
      }
      if (payload.length > ${PAUSED_PAYLOAD_PREVIEW_CHARS}) payload = payload.slice(0, ${PAUSED_PAYLOAD_PREVIEW_CHARS}) + '\\u2026';
    }
    text = JSON.stringify({
      v: 1,
      pid: typeof process === 'object' && process !== null && typeof process.pid === 'number' ? process.pid : null,
      snapshot: probe && typeof probe.snapshot === 'function' ? probe.snapshot() : null,
      eventBreak: hit ? { busId: hit.busId, bus: hit.bus, type: hit.type, payload: payload } : null,
      conditionErrors: breaks && typeof breaks.errors === 'function' ? breaks.errors() : {}
    });
  } catch (e) {
    text = JSON.stringify({ v: 1, error: String(e && e.stack || e) });
  }
  const b64 = typeof Buffer === 'function' ? Buffer.from(text, 'utf8').toString('base64') : btoa(unescape(encodeURIComponent(text)));
  if (b64.length <= ${chunkChars}) return 'B' + b64;
  g[${TRANSFER}] = b64;
  return 'N' + b64.length;
})()`;
}

/** Fetches characters [from, to) of a state too big for one result. */
export function pausedStateChunkExpression(from: number, to: number): string {
  return `'C' + globalThis[${TRANSFER}].slice(${from}, ${to})`;
}

/** Forgets the transfer buffer in the debuggee. */
export function pausedStateCleanupExpression(): string {
  return `(delete globalThis[${TRANSFER}], 'D')`;
}

/** A debugger's display text of a string result: js-debug wraps it in ', " or `; CDP returns it bare. */
export function unquoteResult(text: string): string {
  if (text.length >= 2) {
    const q = text[0];
    if ((q === "'" || q === '"' || q === '`') && text[text.length - 1] === q) return text.slice(1, -1);
  }
  return text;
}

function expectPrefix(text: string, prefix: string, what: string): string {
  const t = unquoteResult(text);
  if (!t.startsWith(prefix)) {
    throw new PausedStateError(`${what}: unexpected result ${JSON.stringify(t.slice(0, 200))}`);
  }
  return t.slice(1);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Reads the paused app's state through `evaluate` (one round trip for a typical app). */
export async function readPausedState(evaluate: PausedEvaluate, chunkChars = PAUSED_STATE_CHUNK_CHARS): Promise<PausedState> {
  if (!Number.isInteger(chunkChars) || chunkChars < 16) throw new TypeError(`readPausedState: chunkChars must be an integer ≥ 16, got ${chunkChars}`);
  const first = unquoteResult(await evaluate(pausedStateExpression(chunkChars)));
  let b64: string;
  if (first.startsWith('B')) b64 = first.slice(1);
  else if (first.startsWith('N')) {
    const total = Number(first.slice(1));
    if (!Number.isInteger(total) || total < 0 || total > MAX_PAUSED_STATE_CHARS) {
      throw new PausedStateError(`the paused state is ${first.slice(1)} characters (at most ${MAX_PAUSED_STATE_CHARS} are read)`);
    }
    const parts: string[] = [];
    try {
      for (let at = 0; at < total; at += chunkChars) {
        const part = expectPrefix(await evaluate(pausedStateChunkExpression(at, Math.min(total, at + chunkChars))), 'C', 'reading the paused state');
        parts.push(part);
      }
    } finally {
      await evaluate(pausedStateCleanupExpression()).catch(() => undefined);
    }
    b64 = parts.join('');
    if (b64.length !== total) throw new PausedStateError(`the paused state arrived incomplete (${b64.length} of ${total} characters)`);
  } else {
    throw new PausedStateError(`evaluating the probe's snapshot returned ${JSON.stringify(first.slice(0, 200))}`);
  }
  if (!BASE64.test(b64)) throw new PausedStateError('the paused state is not base64 (was the result cut by the debugger?)');
  return parsePausedState(Buffer.from(b64, 'base64').toString('utf8'));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks the JSON the debuggee produced. @throws PausedStateError */
export function parsePausedState(json: string): PausedState {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch (e) {
    throw new PausedStateError(`the paused state is not JSON (${(e as Error).message})`);
  }
  if (!isObject(v) || v.v !== 1) throw new PausedStateError('the paused state has an unknown shape');
  if (typeof v.error === 'string') throw new PausedStateError(`the paused app failed to report its state: ${v.error.split('\n')[0]}`);
  const pid = typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 ? v.pid : null;
  let snapshot: ProbeSnapshot | null = null;
  if (v.snapshot !== null && v.snapshot !== undefined) {
    const s = v.snapshot;
    if (!isObject(s)) throw new PausedStateError('the paused snapshot is not an object');
    try {
      // The same field-by-field check as the probe's `snapshot` message: the app's bytes are untrusted either way.
      snapshot = parseProbeSnapshot(s, 'paused snapshot');
    } catch (e) {
      if (e instanceof ProtocolError) throw new PausedStateError(`the paused snapshot is malformed: ${e.message}`);
      throw e;
    }
  }
  let eventBreak: PausedEventBreak | null = null;
  if (isObject(v.eventBreak)) {
    const b = v.eventBreak;
    if (typeof b.type !== 'string' || typeof b.bus !== 'string' || typeof b.busId !== 'number') throw new PausedStateError('the event break is malformed');
    eventBreak = { busId: b.busId, bus: b.bus, type: b.type, payload: typeof b.payload === 'string' ? b.payload : 'null' };
  }
  const conditionErrors: Record<string, string> = {};
  if (isObject(v.conditionErrors)) for (const [k, m] of Object.entries(v.conditionErrors)) if (typeof m === 'string') conditionErrors[k] = m;
  return { pid, snapshot, eventBreak, conditionErrors };
}

/** "combat.hit → enemy.killed (handler #12)" — the dispatch stack in words, outermost first. */
export function describeDispatchStack(state: PausedState, labelOf?: (subscriptionId: number) => string | undefined): string {
  const frames = state.snapshot?.dispatching ?? [];
  const parts = frames.map((f) => {
    if (f.subscriptionId === 0) return f.type;
    const label = labelOf?.(f.subscriptionId);
    return `${f.type} (in ${label !== undefined ? `${label} #${f.subscriptionId}` : `handler #${f.subscriptionId}`})`;
  });
  if (state.eventBreak !== null) parts.push(`${state.eventBreak.type} (about to dispatch)`);
  return parts.join(' → ');
}
