// Registers the bus parts a page cannot use in the shared runtime slot: producer ports (a page's
// workers reach it through `busscope-probe/bus`) and the in-app half of event breakpoints (no
// debugger drives a page: its breakpoints are stored, never hit). The `busscope-probe` and
// `busscope-probe/bus` entries import this module; `busscope-probe/browser` does not, which keeps
// connect + EventBus within its size budget. Importing it twice (ESM and CJS copies) is harmless.
// No Node built-ins here: the bus-only (browser) entry includes this file.
import { eventBreakDone, eventBreakWanted } from '../debug/event-breaks';
import { ProducerInbox } from './producer-inbox';
import { runtime } from './runtime';

const parts = (runtime.optional ??= {});
parts.producerQueue = (bus) => new ProducerInbox(bus);
parts.eventBreakWanted = eventBreakWanted;
parts.eventBreakDone = eventBreakDone;
