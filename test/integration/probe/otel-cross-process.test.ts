// Two real processes, one trace: service A dispatches, its handler calls service B over HTTP with
// W3C `traceparent` (traceHeaders()), B dispatches inside the incoming context
// (withTraceHeaders()). Both export with the real OTLP/HTTP (JSON) exporter to a small OTLP
// receiver this test runs; the receiver's spans must form one trace in which B's handler span
// descends from A's dispatch span.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { ROOT } from './helpers';

const SERVICE = path.join(ROOT, 'test/fixtures/apps/otel-service.cjs');
const TIMEOUT_MS = 30_000;

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

const children: ChildProcess[] = [];
let receiver: http.Server | undefined;
after(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  receiver?.close();
});

/** A minimal OTLP/HTTP JSON trace receiver: POST /v1/traces → collects the spans. */
async function startReceiver(spans: OtlpSpan[]): Promise<string> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).includes('json')) {
        res.statusCode = 400;
        res.end();
        return;
      }
      const payload = JSON.parse(body) as { resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[] };
      for (const rs of payload.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  receiver = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
}

function startService(args: string[]): { child: ChildProcess; stdout: Promise<string>; exited: Promise<number | null>; stderr: () => string } {
  const child = spawn(process.execPath, [SERVICE, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, BUSSCOPE: '', NODE_OPTIONS: '' },
  });
  children.push(child);
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (err += c));
  const stdout = new Promise<string>((resolve) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout, exited, stderr: () => err };
}

function within<T>(p: Promise<T>, what: string, detail: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out\n${detail()}`)), TIMEOUT_MS);
    }),
  ]);
}

const attr = (s: OtlpSpan, key: string): unknown => {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  return v === undefined ? undefined : Object.values(v)[0];
};

test('a dispatch in service A and the handler it reaches in service B over HTTP are one trace', async () => {
  const spans: OtlpSpan[] = [];
  const otlp = await startReceiver(spans);
  const b = startService(['b', otlp]);
  const { port } = JSON.parse(await within(b.stdout, 'service B listening', b.stderr)) as { port: number };
  const a = startService(['a', otlp, `http://127.0.0.1:${port}`]);
  const code = await within(a.exited, 'service A', a.stderr);
  assert.equal(code, 0, `service A failed:\n${a.stderr()}`);
  b.child.kill('SIGTERM');

  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const one = (name: string): OtlpSpan => {
    const found = spans.filter((s) => s.name === name);
    assert.equal(found.length, 1, `one "${name}" span among ${spans.map((s) => s.name).join(', ')}`);
    return found[0];
  };
  const sendA = one('send orders');
  const processA = one('process orders');
  const sendB = one('send payments');
  const processB = one('process payments');
  const charge = one('charge card');
  assert.equal(attr(sendA, 'messaging.destination.name'), 'order.placed');
  assert.equal(attr(sendB, 'messaging.destination.name'), 'payment.requested');
  assert.equal(attr(processB, 'busscope.subscription.label'), 'Charger');
  // One trace across both processes.
  assert.equal(new Set(spans.map((s) => s.traceId)).size, 1, 'every span has the same trace id');
  // B's spans chain up to A's dispatch: charge card → process payments → send payments → (A) process orders → send orders.
  const ancestors = (s: OtlpSpan): string[] => {
    const names: string[] = [];
    for (let p = s.parentSpanId; p !== undefined && p !== ''; p = byId.get(p)?.parentSpanId) names.push(byId.get(p)?.name ?? `missing ${p}`);
    return names;
  };
  assert.deepEqual(ancestors(charge), ['process payments', 'send payments', 'process orders', 'send orders']);
  assert.equal(sendB.parentSpanId, processA.spanId, "B's dispatch is a child of the A handler that called it");
  assert.ok(!sendA.parentSpanId, "A's dispatch is the root");
});
