// A structural check of Chrome Trace Event JSON, strict enough that a trace passing it opens in
// Perfetto and chrome://tracing without "misnested slice" or "unmatched async end" complaints:
// required fields per phase, microsecond timestamps that are finite and non-negative, async
// begin/end pairs, flow pairs, and proper nesting of complete slices on every track.
// Used by the unit tests and by the VS Code suite on the file *Export Trace…* writes.

export interface TraceValidation {
  /** Human-readable problems; empty when the trace is valid. Capped at `maxProblems`. */
  readonly problems: string[];
  /** Events by phase. */
  readonly counts: Readonly<Record<string, number>>;
}

/** Viewers convert µs to integer nanoseconds; differences below that are float noise, not overlap. */
const EPSILON_US = 1e-4;

const PHASES = new Set(['X', 'i', 'I', 'C', 'b', 'e', 'n', 'M', 's', 't', 'f', 'B', 'E']);

interface XSlice {
  readonly ts: number;
  readonly end: number;
  readonly index: number;
}

export function validateChromeTrace(value: unknown, maxProblems = 50): TraceValidation {
  const problems: string[] = [];
  const counts: Record<string, number> = {};
  const problem = (text: string): void => {
    if (problems.length < maxProblems) problems.push(text);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problems: ['the trace is not a JSON object'], counts };
  }
  const trace = value as Record<string, unknown>;
  const events = trace.traceEvents;
  if (!Array.isArray(events)) return { problems: ['traceEvents is not an array'], counts };
  if (trace.displayTimeUnit !== undefined && trace.displayTimeUnit !== 'ms' && trace.displayTimeUnit !== 'ns') {
    problem(`displayTimeUnit must be "ms" or "ns", got ${JSON.stringify(trace.displayTimeUnit)}`);
  }

  const tracks = new Map<string, XSlice[]>();
  const asyncOpen = new Map<string, { ts: number; index: number }>();
  const flowStarts = new Map<string, number>();
  const flowEnds = new Map<string, number>();
  for (let index = 0; index < events.length; index++) {
    const e = events[index] as Record<string, unknown>;
    const at = `event ${index}`;
    if (typeof e !== 'object' || e === null) {
      problem(`${at} is not an object`);
      continue;
    }
    const ph = e.ph;
    if (typeof ph !== 'string' || !PHASES.has(ph)) {
      problem(`${at}: unknown phase ${JSON.stringify(ph)}`);
      continue;
    }
    counts[ph] = (counts[ph] ?? 0) + 1;
    if (typeof e.name !== 'string' || e.name === '') problem(`${at} (${ph}): name must be a non-empty string`);
    if (!Number.isInteger(e.pid) || (e.pid as number) < 0) problem(`${at} (${ph}): pid must be a non-negative integer`);
    if (ph !== 'C' && ph !== 'b' && ph !== 'e' && (!Number.isInteger(e.tid) || (e.tid as number) < 0)) {
      problem(`${at} (${ph}): tid must be a non-negative integer`);
    }
    const ts = e.ts;
    if (typeof ts !== 'number' || !Number.isFinite(ts) || ts < 0) {
      problem(`${at} (${ph}): ts must be a finite, non-negative number of microseconds`);
      continue;
    }
    const track = `${String(e.pid)}/${String(e.tid)}`;
    switch (ph) {
      case 'X': {
        const dur = e.dur;
        if (typeof dur !== 'number' || !Number.isFinite(dur) || dur < 0) {
          problem(`${at} (X ${String(e.name)}): dur must be a finite, non-negative number`);
          break;
        }
        let list = tracks.get(track);
        if (list === undefined) tracks.set(track, (list = []));
        list.push({ ts, end: ts + dur, index });
        break;
      }
      case 'i':
      case 'I':
        if (e.s !== undefined && e.s !== 't' && e.s !== 'p' && e.s !== 'g') problem(`${at} (i): s must be t, p or g`);
        break;
      case 'C': {
        const args = e.args as Record<string, unknown> | undefined;
        if (typeof args !== 'object' || args === null || Object.keys(args).length === 0) problem(`${at} (C): args must hold the counter values`);
        else
          for (const [k, v] of Object.entries(args))
            if (typeof v !== 'number' || !Number.isFinite(v)) problem(`${at} (C): counter ${k} is not a finite number`);
        break;
      }
      case 'b':
      case 'e': {
        if (typeof e.cat !== 'string' || e.cat === '') problem(`${at} (${ph}): async events need a cat`);
        if (typeof e.id !== 'string' && typeof e.id !== 'number') {
          problem(`${at} (${ph}): async events need an id`);
          break;
        }
        const key = `${String(e.pid)}|${String(e.cat)}|${String(e.id)}`;
        if (ph === 'b') {
          if (asyncOpen.has(key)) problem(`${at} (b): async id ${String(e.id)} begins twice`);
          asyncOpen.set(key, { ts, index });
        } else {
          const open = asyncOpen.get(key);
          if (open === undefined) problem(`${at} (e): async id ${String(e.id)} ends without a begin`);
          else {
            if (ts < open.ts) problem(`${at} (e): async id ${String(e.id)} ends before it begins`);
            asyncOpen.delete(key);
          }
        }
        break;
      }
      case 'M': {
        const args = e.args as Record<string, unknown> | undefined;
        if (typeof args !== 'object' || args === null) problem(`${at} (M): metadata needs args`);
        else if (e.name === 'process_name' || e.name === 'thread_name') {
          if (typeof args.name !== 'string') problem(`${at} (M ${String(e.name)}): args.name must be a string`);
        } else if (e.name === 'process_sort_index' || e.name === 'thread_sort_index') {
          if (!Number.isInteger(args.sort_index)) problem(`${at} (M ${String(e.name)}): args.sort_index must be an integer`);
        }
        break;
      }
      case 's':
      case 'f':
      case 't': {
        if (typeof e.id !== 'string' && typeof e.id !== 'number') {
          problem(`${at} (${ph}): flow events need an id`);
          break;
        }
        const key = `${String(e.cat)}|${String(e.id)}`;
        if (ph === 's') flowStarts.set(key, ts);
        if (ph === 'f') flowEnds.set(key, ts);
        break;
      }
      default:
        break;
    }
  }
  for (const [key, open] of asyncOpen) problem(`event ${open.index} (b): async ${key} never ends`);
  for (const [key, ts] of flowEnds) {
    const start = flowStarts.get(key);
    if (start === undefined) problem(`flow ${key} ends without a start`);
    else if (ts < start) problem(`flow ${key} ends before it starts`);
  }

  // Nesting: sort each track by start (longer first) and check every slice against the innermost
  // open slice that contains its start.
  for (const [track, list] of tracks) {
    list.sort((a, b) => a.ts - b.ts || b.end - a.end);
    const stack: XSlice[] = [];
    for (const s of list) {
      while (stack.length > 0 && stack[stack.length - 1].end <= s.ts + EPSILON_US && !(s.ts === s.end && stack[stack.length - 1].ts === s.ts)) stack.pop();
      const top = stack[stack.length - 1];
      if (top !== undefined && s.end > top.end + EPSILON_US) {
        problem(`track ${track}: slice (event ${s.index}) [${s.ts}, ${s.end}] overlaps slice (event ${top.index}) [${top.ts}, ${top.end}] without nesting`);
      }
      stack.push(s);
    }
  }
  return { problems, counts };
}

/** True when `inner` lies within `outer` (both complete slices, closed intervals). */
export function sliceContains(outer: { ts: number; dur?: number }, inner: { ts: number; dur?: number }): boolean {
  const oe = outer.ts + (outer.dur ?? 0);
  const ie = inner.ts + (inner.dur ?? 0);
  return inner.ts >= outer.ts - EPSILON_US && ie <= oe + EPSILON_US;
}
