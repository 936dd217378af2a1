// Queue growth: a bus's deferred queue (enqueue, and events from producer threads through
// openProducerPort) whose consumer falls behind. Two shapes, both from the enqueue and flush records:
//  - `never-flushed`: at least minLength events wait and no flush has run for staleMs (a consumer
//    that forgot to flush, or whose tick stopped); with a producer port, past the cap events drop;
//  - `outrun`: flushes run, but each of the latest three dispatched more than the one before, the
//    last at least minLength: the producers post faster than the consumer drains;
//  - `dropping`: neither shape now, but events from producer threads were dropped at the producer
//    queue's cap (`producer-drops` messages). Drops are evidence on this warning rather than a kind
//    of their own: they are what a growing queue leads to, on the same bus, with the same fix.
import { plural, round, siteText, typeRef, uniqueSites, type AnalysisContext } from './context';
import type { WarningDraft } from './warning';

export function analyzeQueueGrowth(ctx: AnalysisContext): WarningDraft[] {
  const { model, options, now } = ctx;
  const { minLength, staleMs } = options.queueGrowth;
  const out: WarningDraft[] = [];
  for (const [busId, b] of model.buses) {
    if (b.enqueued === 0 || b.disposedAt !== null) continue;
    const waitingMs = b.queueWaitingSince === null ? 0 : Math.max(0, now - b.queueWaitingSince);
    const sinceFlush = b.lastFlushAt === null ? waitingMs : Math.min(waitingMs, Math.max(0, now - b.lastFlushAt));
    const stale = b.queueLength >= Math.max(1, minLength) && sinceFlush >= staleMs;
    const sizes = b.recentFlushSizes;
    const n = sizes.length;
    const outrun = !stale && n >= 3 && sizes[n - 1] >= Math.max(1, minLength) && sizes[n - 3] < sizes[n - 2] && sizes[n - 2] < sizes[n - 1];
    const dropped = b.producerDropped;
    if (!stale && !outrun && dropped === 0) continue;
    const types = [...b.types.values()].filter((t) => t.enqueued > 0).sort((x, y) => y.enqueued - x.enqueued);
    const top = types.slice(0, 5);
    const busName = b.name;
    const producers = b.producerSites;
    const from = producers.length === 0 ? '' : ` (producer${producers.length === 1 ? '' : 's'} at ${producers.slice(0, 2).map(siteText).join(', ')})`;
    const waiting = plural(b.queueLength, 'event');
    const drops = dropped === 0 ? '' : `; ${plural(dropped, 'event')} from producer threads dropped at the cap (${b.producerCap})`;
    const title =
      (stale
        ? `${waiting} wait in the queue of bus "${busName}" and nothing flushes${from}`
        : outrun
          ? `Producers${from} outrun the consumer of bus "${busName}": each flush has more to do (${sizes.slice(-3).join(' → ')})`
          : `The queue of bus "${busName}" reached its producer cap${from}`) + drops;
    const dropText =
      dropped === 0
        ? ''
        : ` So far ${plural(dropped, 'event')} from producer threads were dropped (${b.producerDropPolicy ?? 'newest'} first) ` +
          `because ${b.producerCap} were waiting: their handlers never ran for them (bus.producerStats.dropped counts them in the app).`;
    const explanation = stale
      ? `Bus "${busName}" has ${waiting} queued (enqueue, or from producer threads) and no flush() for ` +
        `${round(sinceFlush / 1000, 1)} s. They are dispatched only when this bus's thread calls flush() ` +
        `(or with autoFlush: 'microtask'); until then their handlers do not run and the queue keeps their payloads alive. ` +
        `Events from producer threads beyond the bus's producerQueue.cap are dropped. Flush on the consumer's tick, or use autoFlush.`
      : `The latest flushes of bus "${busName}" dispatched ${sizes.join(', ')} events: the queue grows between flushes, ` +
        `so the producers post faster than this bus's thread dispatches. Flush more often, make the handlers cheaper, ` +
        `or produce less (coalesce events in the producer); events from producer threads beyond producerQueue.cap are dropped.`;
    const explained = (stale || outrun ? explanation : `Bus "${busName}" was flushed too slowly for its producer threads.`) + dropText;
    out.push({
      id: `queue-growth:${busId}`,
      kind: 'queue-growth',
      severity: 'warning',
      title,
      explanation: explained,
      evidence: {
        pattern: stale ? 'never-flushed' : outrun ? 'outrun' : 'dropping',
        dropped,
        dropPolicy: b.producerDropPolicy,
        cap: b.producerCap,
        producerSites: producers.slice(0, 5),
        queueLength: b.queueLength,
        maxQueueLength: b.maxQueueLength,
        flushes: b.flushes,
        waitingMs: round(waitingMs, 1),
        recentFlushSizes: [...sizes],
        topTypes: top.map((t) => ({ type: t.name, enqueued: t.enqueued })),
      },
      subjects: { buses: [busId], types: top.map((t) => typeRef(model, t)), subscriptions: top.flatMap((t) => [...t.live].map((s) => s.id)).slice(0, 50) },
      // The producers that post into the queue first (the link to the one that outruns the consumer),
      // then where the queued events are handled (the consumer side) and where flush runs.
      sites: uniqueSites([...producers, ...top.flatMap((t) => [...t.live].map((s) => s.site)), ...top.flatMap((t) => t.dispatchSites)]),
    });
  }
  return out;
}
