// Who may connect to *Accept Browser Apps*: loopback Host with the server's port (DNS rebinding),
// Origin on the allowlist (default localhost / 127.0.0.1, any port; the setting adds patterns).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_ALLOWED_ORIGINS, checkOriginPattern, isAllowedOrigin, isLoopbackHostHeader } from '../../../extension/src/browserApps/origin';
import { connectSnippet, readExtraOrigins } from '../../../extension/src/browserApps/snippet';

test("Host must be localhost, 127.0.0.1 or [::1] with the server's own port", () => {
  for (const host of ['localhost:4100', '127.0.0.1:4100', '[::1]:4100', 'LOCALHOST:4100']) assert.equal(isLoopbackHostHeader(host, 4100), true, host);
  for (const host of [
    undefined,
    '',
    'localhost',
    'localhost:4101',
    'evil.example:4100',
    '127.0.0.2:4100',
    'localhost.evil.example:4100',
    '[::2]:4100',
    '127.0.0.1:4100@evil',
  ]) {
    assert.equal(isLoopbackHostHeader(host, 4100), false, String(host));
  }
});

test('the default allowlist takes pages served from this machine on any port, nothing else', () => {
  for (const origin of ['http://localhost:5173', 'https://localhost:8443', 'http://127.0.0.1:3000', 'http://localhost']) {
    assert.equal(isAllowedOrigin(origin, DEFAULT_ALLOWED_ORIGINS), true, origin);
  }
  for (const origin of [
    undefined,
    '',
    'null',
    'https://evil.example',
    'http://localhost.evil.example:5173',
    'file://',
    'http://[::1]:5173',
    'http://localhost:5173/path',
  ]) {
    assert.equal(isAllowedOrigin(origin, DEFAULT_ALLOWED_ORIGINS), false, String(origin));
  }
});

test('the setting adds origins: any port with :*, else exactly the port given (default port when none)', () => {
  const { origins, ignored } = readExtraOrigins(['http://myapp.test:*', 'https://dev.example.com', 'ftp://x', 42, 'http://a.test/path'], checkOriginPattern);
  assert.deepEqual(origins, ['http://myapp.test:*', 'https://dev.example.com']);
  assert.equal(ignored.length, 3);
  const all = [...DEFAULT_ALLOWED_ORIGINS, ...origins];
  assert.equal(isAllowedOrigin('http://myapp.test:9000', all), true);
  assert.equal(isAllowedOrigin('https://dev.example.com', all), true);
  assert.equal(isAllowedOrigin('https://dev.example.com:8443', all), false);
  assert.equal(isAllowedOrigin('http://dev.example.com', all), false);
});

test('the snippet is the connect call with the URL and token', () => {
  const s = connectSnippet('ws://127.0.0.1:4100/', 'abc123');
  assert.match(s, /^import \{ connect \} from 'busscope-probe\/browser';$/m);
  assert.match(s, /connect\(\{ url: "ws:\/\/127\.0\.0\.1:4100\/", token: "abc123"/);
});
