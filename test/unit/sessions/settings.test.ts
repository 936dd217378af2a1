// Settings: the manifest documents exactly the keys the code reads, with the model's and analyses'
// own defaults, and hand-edited bad values fall back to those defaults.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_ANALYSIS_OPTIONS, WARNING_KINDS } from '../../../runtime-probe/src/analysis/analyses/index';
import { Analyzer } from '../../../runtime-probe/src/analysis/analyses/analyzer';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { readSettings, SETTING, SETTING_DEFAULTS, WARNING_SETTING_RULES } from '../../../runtime-probe/src/analysis/settings';

interface Property {
  readonly type: string;
  readonly default: unknown;
  readonly description?: string;
  readonly markdownDescription?: string;
  readonly items?: { readonly enum?: readonly string[] };
}
const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, Property> } };
};
const properties = manifest.contributes.configuration.properties;

describe('settings', () => {
  it('the manifest declares every setting the code reads, documented, with the same defaults', () => {
    // Sections this module owns (others, e.g. debugging, document their own settings).
    const owned = /^busscope\.(timeline|warnings|diagnostics|demo)\.|^busscope\.(autoReattach|discoveryDirectory)$/;
    const declared = Object.keys(properties).filter((k) => owned.test(k));
    const read = Object.values(SETTING).map((k) => `busscope.${k}`);
    for (const key of read) {
      const p = properties[key];
      assert.ok(p, `${key} is declared in package.json`);
      assert.deepEqual(p.default, SETTING_DEFAULTS[key.slice('busscope.'.length) as keyof typeof SETTING_DEFAULTS], `${key} default`);
      assert.ok((p.description ?? p.markdownDescription ?? '').length > 30, `${key} has a description`);
    }
    for (const key of declared) if (!read.includes(key)) assert.fail(`${key} is declared but never read`);
    assert.deepEqual(properties['busscope.warnings.disabled'].items?.enum, WARNING_KINDS);
  });

  it('every busscope.warnings.* setting has one rule (what `busscope check --set` accepts), matching the manifest', () => {
    const warnings = Object.keys(properties).filter((k) => k.startsWith('busscope.warnings.'));
    assert.deepEqual(
      Object.keys(WARNING_SETTING_RULES)
        .map((k) => `busscope.${k}`)
        .sort(),
      warnings.sort(),
    );
    for (const [key, rule] of Object.entries(WARNING_SETTING_RULES)) {
      const p = properties[`busscope.${key}`] as Property & { minimum?: number };
      switch (rule.type) {
        case 'number':
          if (rule.integer) assert.equal(p.type, 'integer', key);
          else assert.ok(p.type === 'number' || p.type === 'integer', key);
          assert.equal(p.minimum, rule.min, `${key} minimum`);
          break;
        case 'boolean':
          assert.equal(p.type, 'boolean', key);
          break;
        case 'kinds':
          assert.equal(p.type, 'array', key);
          break;
      }
    }
  });

  it('unset settings give the model and analyses their defaults', () => {
    const s = readSettings(() => undefined);
    assert.equal(s.autoReattach, false);
    assert.equal(s.discoveryDirectory, undefined);
    assert.equal(s.diagnosticsEnabled, true);
    const model = new Model(s.model);
    assert.equal(model.timeline.capacity, 200_000);
    const analyzer = new Analyzer(model, s.analyzer);
    assert.deepEqual(analyzer.analysisOptions, DEFAULT_ANALYSIS_OPTIONS);
  });

  it('maps values onto model and analysis options, and ignores bad ones', () => {
    const values: Record<string, unknown> = {
      [SETTING.timelineCapacity]: 5000,
      [SETTING.handlerCapacity]: 12.5, // not an integer: default
      [SETTING.listenerGrowthThreshold]: 20,
      [SETTING.slowHandlerP95Ms]: 'fast', // wrong type: default
      [SETTING.neverDispatchedGraceMs]: -3, // out of range: default
      [SETTING.autoReattach]: true,
      [SETTING.discoveryDirectory]: '  /tmp/apps ',
      [SETTING.disabledWarnings]: ['slow-handler', 'no-such-kind'],
    };
    const s = readSettings((k) => values[k]);
    assert.equal(s.autoReattach, true);
    assert.equal(s.discoveryDirectory, '/tmp/apps');
    const model = new Model(s.model);
    assert.equal(model.timeline.capacity, 5000);
    assert.equal(model.handlerSlices.capacity, 200_000);
    const analyzer = new Analyzer(model, s.analyzer);
    assert.equal(analyzer.analysisOptions.listenerGrowth.threshold, 20);
    assert.equal(analyzer.analysisOptions.slowHandler.p95Ms, DEFAULT_ANALYSIS_OPTIONS.slowHandler.p95Ms);
    assert.equal(analyzer.analysisOptions.neverDispatched.graceMs, DEFAULT_ANALYSIS_OPTIONS.neverDispatched.graceMs);
    assert.ok(!s.analyzer.kinds?.includes('slow-handler'));
    assert.equal(s.analyzer.kinds?.length, WARNING_KINDS.length - 1);
  });
});
