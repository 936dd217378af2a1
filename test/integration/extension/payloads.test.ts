// Payload previews end to end: the real demo app, the session manager with the
// `busscope.capturePayloads` setting on (it sends the probe's `configure`), the real ProbeClient and
// Model, and the inspector's dispatch details reading the preview through the session's source.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import { InspectorFeed } from '../../../extension/src/inspector/feed';
import { dispatchesInRange } from '../../../runtime-probe/src/analysis/model/index';
import { inspectorSessionInfo } from '../../../extension/src/sessions/inspectorSource';
import { SessionManager } from '../../../extension/src/sessions/sessionManager';
import type { Session } from '../../../extension/src/sessions/session';
import type { DispatchDetailsView } from '../../../runtime-probe/src/analysis/inspector-messages';
import { startDemo, stopAll, tempDir, waitFor } from './demo';

const managers: SessionManager[] = [];
const dirs: string[] = [];

after(async () => {
  for (const m of managers) m.dispose();
  await stopAll();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function attach(capturePayloads: boolean): Promise<Session> {
  const d = tempDir('busscope-payloads-');
  dirs.push(d);
  const demo = startDemo({ discoveryDir: d });
  const m = new SessionManager({ discoveryDirectory: () => d, capturePayloads: () => capturePayloads, updateIntervalMs: 100, discoveryIntervalMs: 200 });
  managers.push(m);
  return m.attachPid(demo.pid!, 10_000);
}

/** The details the inspector shows for the newest `combat.hit` dispatch that has a payload preview (or the newest one). */
function combatHitDetails(session: Session, withPayload: boolean): DispatchDetailsView | null {
  const info = inspectorSessionInfo(session);
  const feed = new InspectorFeed(session.model);
  const hits = dispatchesInRange(session.model, 0, session.model.now + 1)
    .filter((d) => d.type === 'combat.hit')
    .reverse();
  for (const hit of hits) {
    const details = feed.details({ kind: 'dispatch', seq: hit.seq }, info.payloadOf);
    if (details?.kind !== 'dispatch' || details.dispatch === null) continue;
    if (!withPayload || details.dispatch.payloadPreview !== null) return details.dispatch;
  }
  return null;
}

describe('payload previews against the real demo app', { timeout: 60_000 }, () => {
  it('with capturePayloads on, the details of a dispatch carry its payload, sanitized and capped by the probe', async () => {
    const session = await attach(true);
    await waitFor(() => session.model.sessionInfo.config?.capturePayloads === true, 10_000, 'the probe to confirm capturePayloads');
    await waitFor(() => combatHitDetails(session, true) !== null, 15_000, 'a combat.hit dispatch with a payload preview');
    const details = combatHitDetails(session, true)!;
    assert.equal(details.dispatch.type, 'combat.hit');
    const payload = JSON.parse(details.payloadPreview!) as Record<string, unknown>;
    assert.deepEqual(Object.keys(payload).sort(), ['attackerId', 'critical', 'damage', 'targetId']);
    assert.equal(typeof payload.damage, 'number');

    // The probe cuts longer JSON at its size cap; the preview says so.
    const client = session.probeClient!;
    await client.configure({ payloadSizeCap: 10 });
    const capSeq = session.model.totalDispatches;
    await waitFor(
      () => {
        const d = combatHitDetails(session, true);
        return d !== null && d.payloadPreview!.endsWith(' …') && session.model.totalDispatches > capSeq;
      },
      15_000,
      'a capped payload preview',
    );
    const capped = combatHitDetails(session, true)!.payloadPreview!;
    assert.ok(capped.length <= 10 + 2, `capped preview: ${capped}`);
    assert.equal(session.model.payloadPreviewCount <= session.model.options.payloadPreviewCapacity, true);
  });

  it('with capturePayloads off (the default), the details have no payload', async () => {
    const session = await attach(false);
    await waitFor(() => combatHitDetails(session, false) !== null, 15_000, 'a combat.hit dispatch');
    assert.equal(session.model.sessionInfo.config?.capturePayloads, false);
    assert.equal(combatHitDetails(session, false)!.payloadPreview, null);
    assert.equal(session.model.payloadPreviewCount, 0);
  });
});
