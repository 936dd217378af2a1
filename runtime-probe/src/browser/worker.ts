// `busscope-probe/browser/worker`: `busscope-probe/browser` for a page's dedicated Web Worker, as its
// first import. Loading it reserves the worker's id block before the app's modules create buses and
// takes the port the page hands over (`addWorker`), so that `connectToPage()` can make the worker a
// thread of the page's session. Built as a re-export of dist/browser.mjs (scripts/build.mjs): one
// copy of the code whichever of the two entries a page or worker imports. No Node built-ins here.
import { joinPageWhenAsked } from './index';

export * from './index';

// In a dedicated worker only; elsewhere (a page, Node) nothing happens.
joinPageWhenAsked();
