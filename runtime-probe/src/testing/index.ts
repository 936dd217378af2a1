// `busscope-probe/testing`: a leak gate for test suites. It records every bus while one test runs
// (a trace file in the temp folder, read back into the extension's model) and, at the test's end,
// fails it with the finding's text and source site when the test left:
//   - listener growth: subscriptions made during the test and still registered at its end (on a
//     bus that is still alive) — judged over the test alone, not the long-run threshold;
//   - dead-owner listeners: subscriptions the bus had to drop because their owner died first;
//   - owner gone, still subscribed: an owner disposed one subscription and left its siblings.
// The last two are the extension's own analyses and wording.
//
//   import { beforeEach, afterEach } from 'node:test';            // or vitest / jest globals
//   import { leakGateHooks } from 'busscope-probe/testing';
//   const gate = leakGateHooks();
//   beforeEach(gate.beforeEach);
//   afterEach(gate.afterEach);

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyze, type Warning } from '../analysis/analyses/index';
import { Model, type SubscriptionState } from '../analysis/model/index';
import { siteLocation } from '../cli/site-path';
import { probe, type Recording } from '../probe/index';
import type { SiteInfo } from '../protocol/index';
import { readTraceFile } from '../trace/read-trace';

export type LeakKind = 'listener-growth' | 'dead-owner-listeners' | 'owner-gone-still-registered';

export const LEAK_KINDS: readonly LeakKind[] = ['listener-growth', 'dead-owner-listeners', 'owner-gone-still-registered'];

/** A subscription the test left registered, as the ignore filter sees it. */
export interface LeftSubscription {
  readonly bus: string;
  readonly type: string;
  readonly label: string | null;
  readonly owner: string | null;
  readonly site: SiteInfo | null;
}

export interface LeakGateOptions {
  /** What fails a test; default all three kinds. */
  readonly kinds?: readonly LeakKind[];
  /** Subscriptions a test may leave registered (a cache it warms on purpose); default none. */
  readonly ignore?: (subscription: LeftSubscription) => boolean;
}

export interface LeakFinding {
  readonly kind: LeakKind;
  /** One line, as the extension's Warnings view titles it. */
  readonly title: string;
  readonly explanation: string;
  /** Source sites, most relevant first. */
  readonly sites: readonly SiteInfo[];
}

/** Thrown by `check()` (and so by the hooks): the test left leaks; the message lists them. */
export class LeakError extends Error {
  constructor(readonly findings: readonly LeakFinding[]) {
    super(describeFindings(findings));
    this.name = 'LeakError';
  }
}

let fileCounter = 0;

/** One recording, over one test. */
export class LeakGate {
  private readonly file: string;
  private readonly recording: Recording;
  private readonly kinds: readonly LeakKind[];
  private readonly ignore: ((s: LeftSubscription) => boolean) | undefined;
  private stopped = false;

  private constructor(options: LeakGateOptions) {
    const kinds = options.kinds ?? LEAK_KINDS;
    if (!Array.isArray(kinds) || kinds.some((k) => !(LEAK_KINDS as readonly unknown[]).includes(k))) {
      throw new TypeError(`LeakGate: options.kinds must be a list of ${LEAK_KINDS.join(', ')}`);
    }
    if (options.ignore !== undefined && typeof options.ignore !== 'function') throw new TypeError('LeakGate: options.ignore must be a function');
    this.kinds = [...kinds];
    this.ignore = options.ignore;
    this.file = path.join(os.tmpdir(), `busscope-leak-gate-${process.pid}-${++fileCounter}.bustrace`);
    this.recording = probe.record(this.file);
  }

  /** Starts recording (the buses' current subscriptions are the baseline). */
  static start(options: LeakGateOptions = {}): LeakGate {
    if (options === null || typeof options !== 'object') throw new TypeError('LeakGate.start: options must be an object');
    return new LeakGate(options);
  }

  /** Stops recording and returns what the test left (empty: nothing). */
  async stop(): Promise<readonly LeakFinding[]> {
    if (this.stopped) throw new Error('LeakGate: already stopped');
    this.stopped = true;
    await this.recording.stop();
    const model = new Model();
    try {
      for await (const message of readTraceFile(this.file, model.recordSink)) model.apply(message);
    } finally {
      fs.rmSync(this.file, { force: true });
    }
    model.endSession('end of test');
    return this.judge(model);
  }

  /** Stops recording and throws a LeakError when the test left leaks. */
  async check(): Promise<void> {
    const findings = await this.stop();
    if (findings.length > 0) throw new LeakError(findings);
  }

  private judge(model: Model): LeakFinding[] {
    const out: LeakFinding[] = [];
    if (this.kinds.includes('listener-growth')) out.push(...this.growth(model));
    const kinds = this.kinds.filter((k) => k !== 'listener-growth');
    if (kinds.length > 0) {
      // The end of the test is the moment of judgement: no grace period for a disposed sibling.
      const warnings: readonly Warning[] = analyze(model, { kinds, thresholds: { ownerGone: { graceMs: 0 } } });
      for (const w of warnings) out.push({ kind: w.kind as LeakKind, title: w.title, explanation: w.explanation, sites: w.sites });
    }
    return out;
  }

  /** Subscriptions made during the test (not in the starting snapshot), still live on a live bus. */
  private growth(model: Model): LeakFinding[] {
    const groups = new Map<string, SubscriptionState[]>();
    for (const s of model.subscriptions.values()) {
      if (s.fromSnapshot || !s.active) continue;
      const bus = model.buses.get(s.bus);
      if (bus === undefined || bus.disposedAt !== null) continue;
      if (this.ignore?.({ bus: bus.name, type: s.type.name, label: s.label, owner: s.owner, site: s.site })) continue;
      const key = `${s.bus}\u0000${s.type.name}\u0000${s.siteKey ?? ''}\u0000${s.label ?? ''}`;
      let g = groups.get(key);
      if (g === undefined) groups.set(key, (g = []));
      g.push(s);
    }
    return [...groups.values()].map((subs) => {
      const s = subs[0];
      const busName = model.buses.get(s.bus)?.name ?? String(s.bus);
      const n = subs.length;
      const owners = [...new Set(subs.map((x) => x.owner).filter((o): o is string => o !== null))];
      return {
        kind: 'listener-growth' as const,
        title: `${n} ${n === 1 ? 'subscription' : 'subscriptions'} to "${s.type.name}" on bus "${busName}" made during this test ${n === 1 ? 'is' : 'are'} still registered at its end`,
        explanation:
          `${s.label !== null ? `Handler ${s.label}` : 'The handler'}${owners.length > 0 ? ` (owner ${owners.slice(0, 3).join(', ')}${owners.length > 3 ? ', …' : ''})` : ''} ` +
          'was subscribed while the test ran and never disposed: whatever the test created stays reachable from the bus, and each run adds more. ' +
          'Dispose the subscription (or its owner, or the bus) before the test ends.',
        sites: s.site === null ? [] : [s.site],
      };
    });
  }
}

function describeFindings(findings: readonly LeakFinding[]): string {
  const cwd = process.cwd();
  const parts = findings.map((f) => {
    const lines = [`${f.kind}: ${f.title}`, ...f.explanation.split('\n').map((l) => `  ${l}`)];
    for (const s of f.sites.slice(0, 5)) lines.push(`    subscribed at ${siteLocation(s, cwd)}${s.functionName !== null ? ` (${s.functionName})` : ''}`);
    if (f.sites.length === 0) lines.push('    (no source site: the probe captured none)');
    return lines.join('\n');
  });
  return `busscope leak gate: the test left ${findings.length} ${findings.length === 1 ? 'leak' : 'leaks'}\n\n${parts.join('\n\n')}`;
}

/**
 * `beforeEach` / `afterEach` functions (node:test, vitest, jest, mocha): each test is recorded, and
 * `afterEach` throws a LeakError — failing that test — when it left leaks.
 */
export function leakGateHooks(options: LeakGateOptions = {}): { readonly beforeEach: () => void; readonly afterEach: () => Promise<void> } {
  let gate: LeakGate | undefined;
  return {
    beforeEach: () => {
      gate = LeakGate.start(options);
    },
    afterEach: async () => {
      const g = gate;
      gate = undefined;
      if (g !== undefined) await g.check();
    },
  };
}

/** Wraps one test function: `test('…', withLeakGate(async (t) => { … }))`. */
export function withLeakGate<A extends unknown[]>(fn: (...args: A) => unknown, options: LeakGateOptions = {}): (...args: A) => Promise<void> {
  if (typeof fn !== 'function') throw new TypeError('withLeakGate: fn must be a function');
  return async (...args: A) => {
    const gate = LeakGate.start(options);
    try {
      await fn(...args);
    } catch (error) {
      await gate.stop().catch(() => undefined);
      throw error;
    }
    await gate.check();
  };
}
