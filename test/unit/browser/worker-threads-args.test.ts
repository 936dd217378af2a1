// `busscope-probe/browser/worker` refuses what it cannot use with a precise TypeError: addWorker with
// something that is not a Worker, connectToPage outside a dedicated Web Worker or with bad options.
// (The whole path runs in real Chromium: test/webview/browser-app-workers.test.ts.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addWorker, connectToPage } from '../../../runtime-probe/src/browser/worker';

test('addWorker: a TypeError for anything but a Worker', () => {
  for (const bad of [undefined, null, 42, {}, { postMessage() {} }, { terminate() {} }]) {
    assert.throws(() => addWorker(bad as never), {
      name: 'TypeError',
      message:
        "addWorker: worker must be a dedicated Worker (new Worker(…)); a SharedWorker is no page's thread: it calls connect() itself, as an app of its own",
    });
  }
});

test('connectToPage: a TypeError outside a dedicated worker, and for bad options', () => {
  assert.throws(() => connectToPage(), {
    name: 'TypeError',
    message: 'connectToPage: call it in a dedicated Web Worker (new Worker(…)); a page, a shared worker or a service worker connects with connect()',
  });
  assert.throws(() => connectToPage(null as never), { name: 'TypeError', message: 'connectToPage: options must be an object { name? }' });
  assert.throws(() => connectToPage({ name: '' }), { name: 'TypeError', message: 'connectToPage: name must be a non-empty string of at most 256 characters' });
});
