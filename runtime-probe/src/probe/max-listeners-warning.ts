// Node's MaxListenersExceededWarning, passed on to Busscope clients as evidence of a listener leak.
// Node emits it as a process 'warning' event (on a later tick than the `on` call). A 'warning'
// listener does not change Node's own printing: Node prints process warnings to stderr unless
// `--no-warnings` is given, whatever listeners there are. So the probe listens while its server
// runs and never holds the emitter: it maps it to its bus (when watched) and forgets it.
import type { EmitterWarningMessage } from '../protocol/index';
import { classNameOf, eventName } from '../emitters/emitter-bus';
import { watchedBus } from '../emitters/watch';

/** What Node puts on the warning object (lib/internal/events: `_addListener`). */
interface MaxListenersWarning extends Error {
  readonly emitter?: unknown;
  readonly type?: unknown;
  readonly count?: unknown;
}

/**
 * The bus of a watched emitter. Watches made by `probe.watch` are found here; process-wide
 * instrumentation can add its own lookup (first answer wins).
 */
const lookups: ((emitter: object) => number | undefined)[] = [(emitter) => watchedBus(emitter)?.busId];

/** @internal For the process-wide instrumentation: another way to find an emitter's bus id. */
export function addEmitterBusLookup(lookup: (emitter: object) => number | undefined): void {
  lookups.push(lookup);
}

function busOf(emitter: object): number | null {
  for (const lookup of lookups) {
    const id = lookup(emitter);
    if (id !== undefined) return id;
  }
  return null;
}

/**
 * Starts listening; returns the function that stops. `send` gets each MaxListenersExceededWarning
 * as a message (time in ms since `timeOrigin`). Never throws into the process's warning emit.
 */
export function listenForMaxListenersWarnings(timeOrigin: number, send: (m: EmitterWarningMessage) => void): () => void {
  const onWarning = (warning: MaxListenersWarning): void => {
    try {
      if (warning === null || typeof warning !== 'object' || warning.name !== 'MaxListenersExceededWarning') return;
      const emitter = warning.emitter;
      if (typeof emitter !== 'object' || emitter === null) return;
      const count = typeof warning.count === 'number' && Number.isInteger(warning.count) && warning.count >= 0 ? warning.count : 0;
      send({
        type: 'emitter-warning',
        warning: 'max-listeners',
        time: Date.now() - timeOrigin,
        bus: busOf(emitter),
        emitter: classNameOf(emitter, 'EventEmitter'),
        event: eventName(warning.type),
        count,
        message: String(warning.message).slice(0, 16_384),
      });
    } catch {
      // a warning must never break the app
    }
  };
  process.on('warning', onWarning);
  return () => process.off('warning', onWarning);
}
