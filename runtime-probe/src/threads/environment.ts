// Joins the threads of a Node process when the package loads (Node entry only; pages have none).
// Main thread: shares the id counters (so bus, subscription and owner ids are unique across
// threads), publishes the channel name and clock origin to workers created from now on, and starts
// the hub that feeds their records to the probe's streams. Worker: adopts the shared counters and
// starts forwarding (worker-forwarder.ts). Once per thread, by the first copy of the package loaded.

import { getEnvironmentData, isMainThread, setEnvironmentData, threadId } from 'node:worker_threads';
import { shareInspectorState } from '../debug/inspector-gate';
import { ID_BLOCK, runtime, SHARED_BUS_ID, SHARED_OWNER_ID, SHARED_SUBSCRIPTION_ID } from '../bus/runtime';
import { reportProbeFailure } from '../probe/report';
import { THREADS_ENVIRONMENT_KEY, type ThreadsEnvironment } from './channel';
import { ThreadHub, setMainThreadHub } from './thread-hub';
import { WorkerForwarder } from './worker-forwarder';

type IdCounter = 'nextBusId' | 'nextSubscriptionId' | 'nextOwnerId';

/**
 * Makes a read of `runtime[key]` take `count` ids from shared memory atomically (one bus or owner
 * id, or a block of subscription ids, see `takeSubscriptionId` in bus/runtime.ts); writes are ignored.
 * Unsigned 32-bit, as ids travel in u32 fields of dispatch blocks: a block that would run past 2^32
 * is skipped, and the counter wraps where a plain one would have outgrown those fields anyway.
 */
function shareCounter(ids: Uint32Array, index: number, key: IdCounter, count: number): void {
  Object.defineProperty(runtime, key, {
    configurable: true,
    enumerable: true,
    get: () => {
      const first = Atomics.add(ids, index, count);
      return first > 2 ** 32 - count ? Atomics.add(ids, index, count) : first;
    },
    set: () => undefined,
  });
}

function shareCounters(ids: Uint32Array): void {
  shareCounter(ids, SHARED_BUS_ID, 'nextBusId', 1);
  shareCounter(ids, SHARED_SUBSCRIPTION_ID, 'nextSubscriptionId', ID_BLOCK);
  shareCounter(ids, SHARED_OWNER_ID, 'nextOwnerId', 1);
  runtime.sharedIds = ids;
}

function isThreadsEnvironment(value: unknown): value is ThreadsEnvironment {
  const v = value as Partial<ThreadsEnvironment> | undefined;
  return (
    typeof v === 'object' &&
    v !== null &&
    v.ids instanceof SharedArrayBuffer &&
    v.ids.byteLength >= 12 &&
    typeof v.channel === 'string' &&
    typeof v.timeOrigin === 'number'
  );
}

let joined: WorkerForwarder | undefined;

/** This worker's forwarder, when it joined the main thread's probe. */
export function joinedWorkerForwarder(): WorkerForwarder | undefined {
  return joined;
}

export function installThreads(): void {
  // For producers (bus/producer.ts) on a Node without process.getBuiltinModule.
  runtime.threadId = threadId;
  if (runtime.sharedIds !== undefined) return;
  try {
    if (isMainThread) {
      const ids = new Uint32Array(new SharedArrayBuffer(12));
      ids[SHARED_BUS_ID] = runtime.nextBusId;
      ids[SHARED_SUBSCRIPTION_ID] = runtime.nextSubscriptionId;
      ids[SHARED_OWNER_ID] = runtime.nextOwnerId;
      shareCounters(ids);
      const inspectorFlag = new Int32Array(new SharedArrayBuffer(4));
      shareInspectorState(inspectorFlag, 'main');
      const env: ThreadsEnvironment = {
        ids: ids.buffer as SharedArrayBuffer,
        channel: `busscope.threads.${process.pid}`,
        timeOrigin: performance.timeOrigin,
        inspector: inspectorFlag.buffer as SharedArrayBuffer,
      };
      setEnvironmentData(THREADS_ENVIRONMENT_KEY, env);
      setMainThreadHub(new ThreadHub(env.channel, env.timeOrigin));
      return;
    }
    const env = getEnvironmentData(THREADS_ENVIRONMENT_KEY);
    // A worker of a main thread that never loaded the package: on its own, as before.
    if (!isThreadsEnvironment(env)) return;
    shareCounters(new Uint32Array(env.ids));
    if (env.inspector instanceof SharedArrayBuffer && env.inspector.byteLength >= 4) shareInspectorState(new Int32Array(env.inspector), 'worker');
    joined = new WorkerForwarder(env);
  } catch (error) {
    reportProbeFailure('joining the worker threads', error);
  }
}
