// The scenario of dispatch-code.test.ts, in a module of its own so the test's child process (which
// runs with code generation forbidden) can import it without registering the tests.
import { EventBus } from '../../../runtime-probe/src/bus/index';

interface Events {
  t: number;
}

/**
 * For each handler count 0..14, each way the n-th handler can end (normally, returning true,
 * ctx.consume(), throwing after consume()): who was called, with which ctx.subscriptionId, what
 * dispatch returned, the errors reported and the call counts.
 */
export function scenario(): unknown[] {
  const out: unknown[] = [];
  for (let n = 0; n <= 14; n++) {
    for (const ending of ['none', 'return-true', 'consume', 'consume-then-throw'] as const) {
      const errors: number[] = [];
      const bus = new EventBus<Events>({ onError: (_e, info) => errors.push(info.subscriptionId) });
      const calls: string[] = [];
      const ids: number[] = [];
      const special = Math.floor(n / 2);
      for (let i = 0; i < n; i++) {
        const sub = bus.subscribe('t', (payload, ctx) => {
          calls.push(`${i}:${payload}:${ctx.subscriptionId === ids[i] ? 'own id' : 'WRONG id'}`);
          if (i !== special) return undefined;
          if (ending === 'return-true') return true;
          if (ending === 'consume') ctx.consume();
          if (ending === 'consume-then-throw') {
            ctx.consume();
            throw new Error('after consume');
          }
          return undefined;
        });
        ids.push(sub.id);
      }
      const first = bus.dispatch('t', 1);
      const second = bus.dispatch('t', 2);
      out.push({
        n,
        ending,
        calls,
        first: { ...first, consumedBy: first.consumedBy === undefined ? undefined : ids.indexOf(first.consumedBy) },
        second: { ...second, consumedBy: second.consumedBy === undefined ? undefined : ids.indexOf(second.consumedBy) },
        errors: errors.map((id) => ids.indexOf(id)),
        counts: bus.subscriptions().map((s) => s.calls),
      });
    }
  }
  return out;
}
