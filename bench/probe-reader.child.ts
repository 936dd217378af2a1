// The reading client of bench/probe.bench.ts, in its own process (so the app's core is measured
// honestly): a real ProbeClient over the real socket that decodes every batch and counts what it
// got. Driven by the bench over IPC; never run by bench/index.ts itself (not a *.bench.ts file).
import { ProbeClient } from 'busscope-probe';
// The built bundle, as the extension ships it (the sources through tsx pay a getter per cross-module access).
import { Model } from 'busscope-probe/analysis';

export type DetailLevel = 'lifecycle' | 'dispatch' | 'handlers';

export type ReaderCommand =
  /** `model`: also apply every message to the extension's model (end to end into the model). */
  | { readonly cmd: 'connect'; readonly port: number; readonly token: string; readonly model?: boolean }
  | { readonly cmd: 'configure'; readonly detail: DetailLevel }
  /** Waits until every record produced before this command was delivered or counted, then reports. */
  | { readonly cmd: 'sync' }
  | { readonly cmd: 'close' }
  | { readonly cmd: 'exit' };

export interface ReaderCounts {
  /** Decoded dispatch records since `connect`. */
  readonly dispatchRecords: number;
  readonly handlerRecords: number;
  readonly otherRecords: number;
  /** From `drops` records: all records, and dispatch records among them. */
  readonly droppedRecords: number;
  readonly droppedDispatches: number;
  /** Epoch ms (performance.timeOrigin based) when the last dispatch record arrived; 0 if none. */
  readonly lastDispatchAt: number;
  readonly firstDispatchAt: number;
  /**
   * This process's CPU time (user + system, ms) from `connect` to this report: the reader's own cost,
   * whatever share of the machine it got (the app, and other work, compete with it for cores).
   */
  readonly cpuMs: number;
}

export type ReaderReply =
  | { readonly type: 'ready' }
  | { readonly type: 'configured'; readonly detail: string }
  | { readonly type: 'counts'; readonly counts: ReaderCounts }
  | { readonly type: 'closed' }
  | { readonly type: 'error'; readonly message: string };

const now = (): number => performance.timeOrigin + performance.now();

let client: ProbeClient | undefined;
let counts = fresh();
let cpuAtConnect = process.cpuUsage();

function fresh(): { -readonly [K in keyof ReaderCounts]: ReaderCounts[K] } {
  return { dispatchRecords: 0, handlerRecords: 0, otherRecords: 0, droppedRecords: 0, droppedDispatches: 0, lastDispatchAt: 0, firstDispatchAt: 0, cpuMs: 0 };
}

function reply(message: ReaderReply): void {
  process.send?.(message);
}

async function handle(command: ReaderCommand): Promise<void> {
  switch (command.cmd) {
    case 'connect': {
      client?.close();
      counts = fresh();
      const model = command.model === true ? new Model() : undefined;
      client = await ProbeClient.connect({
        port: command.port,
        token: command.token,
        clientName: 'busscope-bench-reader',
        // As the extension does: record batches decode straight into the model.
        recordSink: model?.recordSink,
        onMessage: (m) => {
          if (model !== undefined) {
            model.apply(m);
            if (m.type !== 'records') return;
            // The model counted what reached it: dispatch rows and reported drops.
            const before = counts.dispatchRecords;
            counts.dispatchRecords = model.totalDispatches;
            counts.droppedRecords = model.drops.records;
            counts.droppedDispatches = model.drops.dispatches;
            if (counts.dispatchRecords !== before) {
              counts.lastDispatchAt = now();
              if (counts.firstDispatchAt === 0) counts.firstDispatchAt = counts.lastDispatchAt;
            }
            return;
          }
          if (m.type !== 'records') return;
          let sawDispatch = false;
          for (const r of m.records) {
            switch (r.kind) {
              case 'dispatch':
                counts.dispatchRecords++;
                sawDispatch = true;
                break;
              case 'handler':
                counts.handlerRecords++;
                break;
              case 'drops':
                counts.droppedRecords += r.count;
                counts.droppedDispatches += r.dispatches;
                break;
              default:
                counts.otherRecords++;
            }
          }
          if (sawDispatch) {
            counts.lastDispatchAt = now();
            if (counts.firstDispatchAt === 0) counts.firstDispatchAt = counts.lastDispatchAt;
          }
        },
      });
      cpuAtConnect = process.cpuUsage();
      reply({ type: 'ready' });
      return;
    }
    case 'configure': {
      if (!client) throw new Error('configure before connect');
      const config = await client.configure({ detail: command.detail });
      reply({ type: 'configured', detail: config.detail });
      return;
    }
    case 'sync':
      if (!client) throw new Error('sync before connect');
      await client.ping();
      {
        const cpu = process.cpuUsage(cpuAtConnect);
        reply({ type: 'counts', counts: { ...counts, cpuMs: (cpu.user + cpu.system) / 1000 } });
      }
      return;
    case 'close':
      if (client) {
        const closed = client.closed;
        client.close();
        await closed;
        client = undefined;
      }
      reply({ type: 'closed' });
      return;
    case 'exit':
      client?.close();
      process.disconnect?.();
      return;
    default: {
      const never: never = command;
      throw new Error(`unknown command ${JSON.stringify(never)}`);
    }
  }
}

// Commands are handled one at a time, in order.
let chain: Promise<void> = Promise.resolve();
process.on('message', (command: ReaderCommand) => {
  chain = chain
    .then(() => handle(command))
    .catch((error: unknown) => reply({ type: 'error', message: error instanceof Error ? error.message : String(error) }));
});
