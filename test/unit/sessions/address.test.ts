// What the user types into Attach to Address…, and how ages read in the picker.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatAge, isAddressError, nonLoopbackWarning, parseAddress } from '../../../extension/src/sessions/address';

describe('parseAddress', () => {
  it('accepts host:port, :port, a bare port and bracketed IPv6', () => {
    assert.deepEqual(parseAddress('127.0.0.1:53123'), { host: '127.0.0.1', port: 53123 });
    assert.deepEqual(parseAddress('  localhost:80 '), { host: 'localhost', port: 80 });
    assert.deepEqual(parseAddress(':9229'), { host: '127.0.0.1', port: 9229 });
    assert.deepEqual(parseAddress('9229'), { host: '127.0.0.1', port: 9229 });
    assert.deepEqual(parseAddress('[::1]:4000'), { host: '::1', port: 4000 });
  });

  it('says what is wrong otherwise', () => {
    const error = (text: string): string => {
      const r = parseAddress(text);
      assert.ok(isAddressError(r), `${text} is rejected`);
      return r.error;
    };
    assert.match(error(''), /host:port/);
    assert.match(error('localhost:http'), /not a port number/);
    assert.match(error('localhost:0'), /outside 1–65535/);
    assert.match(error('localhost:70000'), /outside 1–65535/);
    assert.match(error('::1:4000'), /brackets/);
    assert.match(error('my host:4000'), /not a host name/);
  });

  it('throws a TypeError for a non-string', () => {
    assert.throws(() => parseAddress(42 as unknown as string), TypeError);
  });
});

describe('formatAge', () => {
  it('reads short', () => {
    assert.equal(formatAge(12_400), '12 s');
    assert.equal(formatAge(5 * 60_000 + 1), '5 min');
    assert.equal(formatAge(3 * 3_600_000), '3 h');
    assert.equal(formatAge(3 * 86_400_000), '3 d');
    assert.equal(formatAge(-5), 'just now');
  });
});

describe('nonLoopbackWarning', () => {
  it('is silent for this machine and explains the risk for any other host', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1']) assert.equal(nonLoopbackWarning(host), undefined, host);
    for (const host of ['10.0.0.5', 'build-box.local', 'fe80::1', '0.0.0.0']) {
      assert.match(nonLoopbackWarning(host) ?? '', /is not this machine.*unencrypted/, host);
    }
    // What the user types without a host stays on this machine.
    const bare = parseAddress('53123');
    assert.ok(!isAddressError(bare));
    assert.equal(nonLoopbackWarning(bare.host), undefined);
  });
});
