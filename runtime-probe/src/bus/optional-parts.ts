// Registers optional bus parts in the shared runtime slot: producer ports (a page's workers reach
// them through `busscope-probe/bus`) and the in-app half of event breakpoints. The `busscope-probe`
// and `busscope-probe/bus` entries import this module; `busscope-probe/browser` does not, which keeps
// connect + EventBus within its size budget (a page registers the event-breakpoint half itself once
// the extension sets breakpoints: browser/page-breaks.ts). Importing it twice (ESM and CJS copies) is harmless.
// No Node built-ins here: the bus-only (browser) entry includes this file.
import { eventBreakDone, eventBreakWanted } from '../debug/event-breaks';
import { ProducerInbox } from './producer-inbox';
import { runtime } from './runtime';

const parts = (runtime.optional ??= {});
parts.producerQueue = (bus) => new ProducerInbox(bus);
parts.eventBreakWanted = eventBreakWanted;
parts.eventBreakDone = eventBreakDone;
