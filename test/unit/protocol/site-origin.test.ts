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

const at = (file: string | undefined) => ({ site: file === undefined ? null : { file } });

test('a bus is a library bus only when every known listener site is outside the app', () => {
  assert.equal(isLibraryBus(null, [at('node:net'), at('/a/node_modules/ws/x.js')]), true);
  assert.equal(isLibraryBus(null, [at('node:net'), at('/a/src/leak.js')]), false);
  assert.equal(isLibraryBus(null, [at(undefined), at('node:net')]), true);
  assert.equal(isLibraryBus(null, [at(undefined), at(undefined)]), false, 'no known site: not called a library');
  assert.equal(isLibraryBus(null, []), false);
});

test('the probe’s origin verdict decides before the site (Node’s own listeners have none); an EventBus is never a library’s', () => {
  assert.equal(isLibraryBus('node-emitter', [{ origin: 'node', site: null }, { origin: 'node' }]), true, 'site-less Node listeners');
  assert.equal(
    isLibraryBus('node-emitter', [
      { origin: 'node', site: null },
      { origin: 'app', site: null },
    ]),
    false,
    'one app listener',
  );
  assert.equal(isLibraryBus('node-emitter', [{ origin: 'app', site: { file: '/a/node_modules/x.js' } }]), false, 'the verdict wins over the site');
  assert.equal(isLibraryBus('bus', [at('/a/node_modules/x.js')]), false);
});
