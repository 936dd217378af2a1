// Protocol version 2 readers keep reading version-1 traces. The fixture was written by the probe
// before version 2 (test/fixtures/traces/generate-v1.mts); its decoded form was saved alongside.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readTraceFileMessages } from '../../../runtime-probe/src/trace/read-trace';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/traces');

test('a version-1 trace decodes exactly as it did under version 1', async () => {
  const messages = await readTraceFileMessages(path.join(dir, 'protocol-v1.bustrace'));
  const expected = JSON.parse(fs.readFileSync(path.join(dir, 'protocol-v1.decoded.json'), 'utf8')) as unknown;
  assert.deepEqual(JSON.parse(JSON.stringify(messages)), expected);
  const welcome = messages[0];
  assert.equal(welcome?.type === 'welcome' && welcome.protocolVersion, 1);
  const dispatches = messages.flatMap((m) => (m.type === 'records' ? m.records : [])).filter((r) => r.kind === 'dispatch');
  assert.equal(dispatches.length, 6);
  for (const d of dispatches) assert.equal('startBound' in d, false, 'version-1 starts were clock reads: no bound');
});
