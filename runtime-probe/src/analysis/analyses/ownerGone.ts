// Subscriptions whose owner is gone yet still registered. The bus cannot know an owner is gone
// unless the owner says so (`disposed`) or is collected; but the records show a telling pattern:
// an owner disposes one of the subscriptions it made together with others (its teardown ran) and
// leaves a sibling registered — which then goes on being called for an owner that is finished.
// Owners are told apart by the probe's owner id; from a probe that does not send ids, only owners
// whose description names one object (`Enemy#12`) are judged.
import { ownerLabel, type SubscriptionState } from '../model/entities';
import { plural, siteText, subName, typeName, typeRef, uniqueSites, type AnalysisContext } from './context';
import type { WarningDraft } from './warning';

interface Group {
  readonly sample: SubscriptionState;
  readonly subs: SubscriptionState[];
  /** Owner labels (`ownerLabel`), one per distinct owner. */
  readonly owners: string[];
  readonly ownerKeys: string[];
  disposedType: string;
  disposedLabel: string | null;
  callsAfter: number;
  oldestDisposal: number;
}

export function analyzeOwnerGone(ctx: AnalysisContext): WarningDraft[] {
  const { model, options, now } = ctx;
  const { graceMs, siblingWindowMs } = options.ownerGone;
  const groups = new Map<string, Group>();
  for (const owner of model.owners.values()) {
    if (owner.disposals.length === 0 || !owner.identifiable) continue;
    for (const s of [...owner.live, ...owner.retired]) {
      // A subscription its disposed bus still held is judged as it was at the end.
      const at = s.endedAt ?? now;
      for (const d of owner.disposals) {
        if (at - d.time < graceMs) continue;
        if (s.createdAt > d.time || Math.abs(s.createdAt - d.createdAt) > siblingWindowMs) continue;
        const key = `${s.type.index}|${s.siteKey ?? `label:${s.label ?? ''}`}`;
        let g = groups.get(key);
        if (g === undefined) {
          g = { sample: s, subs: [], owners: [], ownerKeys: [], disposedType: d.type, disposedLabel: d.label, callsAfter: 0, oldestDisposal: d.time };
          groups.set(key, g);
        }
        g.subs.push(s);
        if (!g.ownerKeys.includes(owner.key)) {
          g.ownerKeys.push(owner.key);
          g.owners.push(ownerLabel(owner.description, owner.ownerId));
        }
        g.callsAfter += Math.max(0, s.calls - (d.othersCalls.get(s.id) ?? s.calls));
        if (d.time < g.oldestDisposal) g.oldestDisposal = d.time;
        break;
      }
    }
  }
  const out: WarningDraft[] = [];
  for (const [key, g] of groups) {
    const s = g.sample;
    const t = s.type;
    const n = g.subs.length;
    const disposed = g.disposedLabel ?? `its "${g.disposedType}" subscription`;
    out.push({
      id: `owner-gone-still-registered:${t.bus}:${t.name}:${key}`,
      kind: 'owner-gone-still-registered',
      severity: 'warning',
      title: `${subName(s)} still registered after its owner tore down (${plural(g.owners.length, 'owner')})`,
      explanation:
        `${plural(g.owners.length, 'owner')} (${g.owners.slice(0, 3).join(', ')}${g.owners.length > 3 ? ', …' : ''}) disposed ${disposed} ` +
        `but not the ${subName(s)} subscription to ${typeName(model, t)} they made at the same moment (${siteText(s.site)}). ` +
        `${n === 1 ? 'It is' : `${n} of them are`} still registered` +
        `${g.callsAfter > 0 ? ` and ${g.callsAfter === 1 ? 'was' : 'were'} called ${plural(g.callsAfter, 'more time')} since` : ''}: ` +
        `if the owner is finished, this handler runs for a dead object. The bus cannot tell, because the owner ` +
        `does not mark itself disposed; dispose this subscription together with its sibling (or set \`disposed\` on the owner).`,
      evidence: {
        owners: g.owners.length,
        stillRegistered: n,
        sampleOwners: g.owners.slice(0, 8),
        disposedType: g.disposedType,
        disposedLabel: g.disposedLabel,
        callsAfterDisposal: g.callsAfter,
        oldestDisposalAt: g.oldestDisposal,
      },
      subjects: { buses: [t.bus], types: [typeRef(model, t)], subscriptions: g.subs.slice(0, 50).map((x) => x.id) },
      sites: uniqueSites([s.site]),
    });
  }
  return out;
}
