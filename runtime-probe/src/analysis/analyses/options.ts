// Thresholds of the analyses, with defaults chosen for interactive apps and games (a 60 Hz frame
// is 16 ms). The VS Code layer maps its settings onto these; any field may be left out.

export interface AnalysisOptions {
  readonly listenerGrowth: {
    /** Live listeners of one event type that trigger the warning (VS Code's LeakageMonitor idea); 0 disables. */
    readonly threshold: number;
    /** After a warning, warn again only after this fraction of the threshold more listeners. */
    readonly rearmFraction: number;
    /** The same owner subscribed to the same type from the same site this many times, still live; 0 disables. */
    readonly repeatedSubscriptionThreshold: number;
    /** …over at least this long (a loop subscribing per item at once is not growth). */
    readonly repeatedSubscriptionMinSpanMs: number;
    /**
     * Listeners without an owner (every listener of a watched emitter) of one type on one bus from
     * one subscribe site, still live, over `repeatedSubscriptionMinSpanMs` or more: the emitter is
     * shared and some per-request or per-connection code adds to it. 11 is where Node's own
     * MaxListenersExceededWarning fires by default. 0 disables.
     */
    readonly sameSiteThreshold: number;
  };
  readonly deadOwners: {
    /** Removals of subscriptions with a dead or collected owner, per subscribe site. */
    readonly minRemovals: number;
  };
  readonly ownerGone: {
    /** How long a subscription must outlive its disposed sibling to count. */
    readonly graceMs: number;
    /** Subscriptions made this close together (ms) by one owner are siblings. */
    readonly siblingWindowMs: number;
  };
  readonly unheardDispatch: {
    readonly minUnheard: number;
    /** Also report unheard types with no similar name (events nobody happens to listen to are often fine). */
    readonly reportWithoutNearMiss: boolean;
    readonly nearMissMaxDistance: number;
    readonly nearMissMinScore: number;
  };
  readonly neverDispatched: {
    /** Time a subscription waits before "never dispatched" is said. */
    readonly graceMs: number;
  };
  readonly churn: {
    readonly minCyclesPerSecond: number;
    /** Minimum cycles in the window (a short burst is not a hot path). */
    readonly minCycles: number;
    /** Cycles whose mean lifetime is longer than this are not churn. */
    readonly maxMeanLifetimeMs: number;
  };
  readonly slowHandler: {
    /** 95th percentile of handler self time at or above this, with at least `minCalls` calls… */
    readonly p95Ms: number;
    readonly minCalls: number;
    /** …of which at least this many took `p95Ms` or more (one preempted call is not a slow handler). */
    readonly minSlowCalls: number;
    /** Any single call at or above this. */
    readonly maxMs: number;
  };
  readonly throwingHandler: {
    /** Errors other than DispatchDepthError (those belong to the depth-limit warning). */
    readonly minErrors: number;
  };
  readonly depthLimit: {
    readonly minHits: number;
  };
  readonly starved: {
    /** Dispatches since it subscribed, every one consumed before its turn. */
    readonly minDispatches: number;
  };
  readonly queueGrowth: {
    /** Events waiting to flush (now, or dispatched by the latest flush) before the queue is a concern. */
    readonly minLength: number;
    /** Waiting this long with no flush: the consumer never flushes. */
    readonly staleMs: number;
  };
}

export const DEFAULT_ANALYSIS_OPTIONS: AnalysisOptions = {
  listenerGrowth: { threshold: 100, rearmFraction: 0.5, repeatedSubscriptionThreshold: 3, repeatedSubscriptionMinSpanMs: 200, sameSiteThreshold: 11 },
  deadOwners: { minRemovals: 1 },
  ownerGone: { graceMs: 1000, siblingWindowMs: 100 },
  unheardDispatch: { minUnheard: 1, reportWithoutNearMiss: false, nearMissMaxDistance: 2, nearMissMinScore: 0.75 },
  neverDispatched: { graceMs: 5000 },
  churn: { minCyclesPerSecond: 20, minCycles: 50, maxMeanLifetimeMs: 1000 },
  slowHandler: { p95Ms: 2, minCalls: 10, minSlowCalls: 3, maxMs: 100 },
  throwingHandler: { minErrors: 1 },
  depthLimit: { minHits: 1 },
  starved: { minDispatches: 5 },
  queueGrowth: { minLength: 1000, staleMs: 2000 },
};

export type AnalysisOptionsInput = { readonly [K in keyof AnalysisOptions]?: Partial<AnalysisOptions[K]> };

/** Defaults merged with `input` (undefined fields keep their default); bad values throw TypeError. */
export function resolveAnalysisOptions(input: AnalysisOptionsInput = {}): AnalysisOptions {
  const out: Record<string, Record<string, number | boolean>> = {};
  for (const section of Object.keys(DEFAULT_ANALYSIS_OPTIONS) as (keyof AnalysisOptions)[]) {
    const defaults = DEFAULT_ANALYSIS_OPTIONS[section] as unknown as Record<string, number | boolean>;
    const given = (input[section] ?? {}) as Record<string, unknown>;
    const merged: Record<string, number | boolean> = { ...defaults };
    for (const key of Object.keys(given)) {
      if (!(key in defaults)) throw new TypeError(`AnalysisOptions.${section}.${key} is not an option`);
      const v = given[key];
      if (v === undefined) continue;
      const want = typeof defaults[key];
      if (typeof v !== want || (want === 'number' && (!Number.isFinite(v as number) || (v as number) < 0))) {
        throw new TypeError(`AnalysisOptions.${section}.${key} must be ${want === 'number' ? 'a non-negative finite number' : 'a boolean'}, got ${String(v)}`);
      }
      merged[key] = v as number | boolean;
    }
    out[section] = merged;
  }
  for (const key of Object.keys(input)) {
    if (!(key in DEFAULT_ANALYSIS_OPTIONS)) throw new TypeError(`AnalysisOptions.${key} is not an option section`);
  }
  const o = out as unknown as AnalysisOptions;
  if (!(o.listenerGrowth.rearmFraction > 0)) throw new TypeError('AnalysisOptions.listenerGrowth.rearmFraction must be > 0');
  return o;
}
