// Compile-time API tests for cross-thread queues (bus.openProducerPort / connectProducer). Checked
// by `npm run typecheck`, never executed: every `@ts-expect-error` line claims a compile error.
import { connectProducer, EventBus, type CloneablePayload, type Producer, type ProducerStats, type TransferablePort } from '../../runtime-probe/src/index';
import * as browserEntry from '../../runtime-probe/src/bus/index';
import type { MessagePort as NodeMessagePort } from 'node:worker_threads';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
function use(..._values: unknown[]): void {}

interface Jobs {
  'job.done': { id: number; tags: string[]; at: Date; extra?: Map<string, number> };
  'job.log': string;
  heartbeat: void;
}

export function producerSide(bus: EventBus<Jobs>): void {
  const port = bus.openProducerPort();
  // The runtime's MessagePort (a Node-only project gets Node's, which goes in a transferList; this
  // project also loads jsdom's DOM types, so here it is the DOM's).
  const transferable: TransferablePort = port;
  type _port = Expect<Equal<TransferablePort, InstanceType<typeof MessagePort>>>;
  const producer = connectProducer<Jobs>(port);
  type _producer = Expect<Equal<typeof producer, Producer<Jobs>>>;
  producer.enqueue('job.done', { id: 1, tags: ['a'], at: new Date() });
  producer.enqueue('job.log', 'line');
  producer.enqueue('heartbeat');
  // @ts-expect-error not an event of the map
  producer.enqueue('job.gone', 'x');
  // @ts-expect-error the payload type is the map's
  producer.enqueue('job.log', 42);
  // @ts-expect-error a required payload is missing
  producer.enqueue('job.done');
  const stats: ProducerStats = bus.producerStats;
  const closed: Promise<void> = bus.producersClosed();
  use(transferable, stats, closed);
}

// Payload types the structured clone cannot carry do not type-check.
interface Uncloneable {
  'with.callback': { id: number; done: () => void };
  'with.symbol': { key: symbol };
  'with.nested': { inner: { list: Array<{ f: (x: number) => number }> } };
  ok: { id: number };
}

export function uncloneable(port: NodeMessagePort): void {
  // @ts-expect-error an event map with a function or symbol payload is refused at connectProducer
  connectProducer<Uncloneable>(port);
  // @ts-expect-error an optional callback too
  connectProducer<{ 'with.callback': { id: number; done?: () => void } }>(port);
  connectProducer<Pick<Uncloneable, 'ok'>>(port);
}

// What the check makes of payloads: functions anywhere become never; clonable built-ins stay.
type _fn = Expect<Equal<CloneablePayload<{ id: number; done: () => void }>, { id: number; done: never }>>;
type _nested = Expect<Equal<CloneablePayload<{ a: Array<{ f: symbol }> }>, { a: Array<{ f: never }> }>>;
type _date = Expect<Equal<CloneablePayload<{ at: Date; bytes: Uint8Array }>, { at: Date; bytes: Uint8Array }>>;
type _map = Expect<Equal<CloneablePayload<Map<string, { n: number }>>, Map<string, { n: number }>>>;
type _prim = Expect<Equal<CloneablePayload<string | number | null>, string | number | null>>;

// The browser entry exports the same producer.
type _sameConnect = Expect<Equal<typeof browserEntry.connectProducer, typeof connectProducer>>;
