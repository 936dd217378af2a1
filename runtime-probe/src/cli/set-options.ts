// `check --set <key>=<value>`: the extension's `busscope.warnings.*` settings, by the same names
// (`listenerGrowth.threshold=50`, `disabled=slow-handler,never-dispatched`; the full
// `busscope.warnings.…` name works too), turned into analyzer options by the extension's own
// readSettings — one definition of the keys, ranges and defaults. Where the extension falls back to
// the default on a bad value (settings.json is hand-edited), the CLI refuses it as a usage error.

import { WARNING_KINDS, type AnalyzerOptions } from '../analysis/analyses/index';
import { WARNING_SETTING_RULES, readSettings, type WarningSettingKey, type WarningSettingRule } from '../analysis/settings';
import { UsageError } from './args';

const PREFIX = 'warnings.';

/** The keys `--set` takes, as users spell them. */
export function setKeys(): string[] {
  return Object.keys(WARNING_SETTING_RULES).map((k) => k.slice(PREFIX.length));
}

function parseValue(key: string, rule: WarningSettingRule, text: string): unknown {
  switch (rule.type) {
    case 'number': {
      const n = text === '' ? NaN : Number(text);
      if (!Number.isFinite(n) || n < rule.min || n > rule.max || (rule.integer && !Number.isInteger(n))) {
        throw new UsageError(`--set ${key} takes ${rule.integer ? 'an integer' : 'a number'} from ${rule.min} to ${rule.max} (got "${text}")`, 'check');
      }
      return n;
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw new UsageError(`--set ${key} takes true or false (got "${text}")`, 'check');
      return text === 'true';
    case 'kinds': {
      const kinds = text === '' ? [] : text.split(',').map((s) => s.trim());
      for (const k of kinds) {
        if (!(WARNING_KINDS as readonly string[]).includes(k)) {
          throw new UsageError(`--set ${key} takes warning kinds, comma-separated (${WARNING_KINDS.join(', ')}); got "${k}"`, 'check');
        }
      }
      return kinds;
    }
    default: {
      const never: never = rule;
      return never;
    }
  }
}

export function analyzerOptionsFromSet(set: readonly { readonly key: string; readonly value: string }[]): AnalyzerOptions {
  const values = new Map<string, unknown>();
  for (const { key, value } of set) {
    const full = PREFIX + key.replace(/^(busscope\.)?(warnings\.)?/, '');
    const rule = (WARNING_SETTING_RULES as Readonly<Record<string, WarningSettingRule>>)[full];
    if (rule === undefined) throw new UsageError(`--set: unknown setting "${key}" (one of ${setKeys().join(', ')})`, 'check');
    values.set(full as WarningSettingKey, parseValue(key, rule, value));
  }
  return readSettings((k) => values.get(k)).analyzer;
}
