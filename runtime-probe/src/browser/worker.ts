// `busscope-probe/browser/worker`: a page's Web Workers as threads of the page's Busscope session.
// In the page, `addWorker(worker)` (after or before `connect`); in the worker, import this entry
// first and call `connectToPage()`. Everything `busscope-probe/browser` exports is here too, so a
// worker imports its bus from one place. Separate from `busscope-probe/browser` so that a page
// without workers does not pay for it (test/unit/browser/size.test.ts). No Node built-ins here.
import { joinPageWhenAsked } from './threads/worker-side';

export * from './index';
export { addWorker, type PageWorker } from './threads/page-threads';
export { connectToPage, type ConnectToPageOptions, type WorkerConnection, type WorkerConnectionState } from './threads/worker-side';

// In a dedicated worker: reserve this worker's id block before the app's modules create buses, and
// take the port the page hands over. Elsewhere (the page, Node) nothing happens.
joinPageWhenAsked();
