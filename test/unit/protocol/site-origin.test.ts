import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isLibraryBus, siteOrigin } from '../../../runtime-probe/src/protocol/index';

test('a site is the app, a dependency or Node itself', () => {
  assert.equal(siteOrigin('/home/me/app/src/server.js'), 'app');
  assert.equal(siteOrigin('file:///home/me/app/src/server.mjs'), 'app');
  assert.equal(siteOrigin('/home/me/app/node_modules/ws/lib/websocket.js'), 'library');
  assert.equal(siteOrigin('C:\\app\\node_modules\\ws\\index.js'), 'library');
  assert.equal(siteOrigin('node:net'), 'node');
  assert.equal(siteOrigin('node:internal/streams/readable'), 'node');
});

test('a bus is a library bus only when every known listener site is outside the app', () => {
  assert.equal(isLibraryBus(['node:net', '/a/node_modules/ws/x.js']), true);
  assert.equal(isLibraryBus(['node:net', '/a/src/leak.js']), false);
  assert.equal(isLibraryBus([undefined, 'node:net']), true);
  assert.equal(isLibraryBus([undefined, undefined]), false, 'no known site: not called a library');
  assert.equal(isLibraryBus([]), false);
});
