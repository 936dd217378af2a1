// `busscope check --sarif <file>`: the warnings as a SARIF 2.1.0 log, for code-scanning tools. One
// rule per warning kind; one result per warning, at its first source site (the others as related
// locations), with the extension's wording (title, then explanation) as the message. Paths inside
// the working folder are relative to %SRCROOT% (how code scanning maps them onto the repository).

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { WARNING_KINDS, type Severity, type Warning } from '../analysis/analyses/index';
import type { SiteInfo } from '../protocol/index';
import { PROBE_VERSION } from '../probe/version';
import { fails, type FailOn } from './fail-on';
import { siteFilePath } from './site-path';

const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
const SRCROOT = 'SRCROOT';

type SarifLevel = 'error' | 'warning' | 'note';

function level(s: Severity): SarifLevel {
  switch (s) {
    case 'error':
      return 'error';
    case 'warning':
      return 'warning';
    case 'info':
      return 'note';
    default: {
      const never: never = s;
      return never;
    }
  }
}

interface ArtifactLocation {
  readonly uri: string;
  readonly uriBaseId?: string;
}

function artifactLocation(file: string, cwd: string): ArtifactLocation {
  const local = siteFilePath(file);
  if (path.isAbsolute(local)) {
    const rel = path.relative(cwd, local);
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) {
      return { uri: rel.split(path.sep).map(encodeURIComponent).join('/'), uriBaseId: SRCROOT };
    }
    return { uri: pathToFileURL(local).href };
  }
  // Not a local path (`node:events`, a URL the app's bundler produced): keep it, as a valid URI reference.
  return { uri: encodeURI(local) };
}

function physical(site: SiteInfo, cwd: string) {
  return {
    artifactLocation: artifactLocation(site.file, cwd),
    region: { startLine: Math.max(1, site.line), startColumn: Math.max(1, site.column) },
  };
}

function distinct(sites: readonly SiteInfo[]): SiteInfo[] {
  const seen = new Set<string>();
  return sites.filter((s) => {
    const k = `${s.file}:${s.line}:${s.column}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Kind `listener-growth` → rule name `ListenerGrowth`. */
function ruleName(kind: string): string {
  return kind.replace(/(^|-)([a-z])/g, (_, _dash: string, c: string) => c.toUpperCase());
}

export function toSarif(warnings: readonly Warning[], failOn: FailOn, cwd: string): object {
  const results = warnings.map((w) => {
    const [first, ...rest] = distinct(w.sites);
    return {
      ruleId: w.kind,
      ruleIndex: WARNING_KINDS.indexOf(w.kind),
      level: level(w.severity),
      message: { text: `${w.title}\n${w.explanation}` },
      ...(first === undefined ? {} : { locations: [{ physicalLocation: physical(first, cwd) }] }),
      ...(rest.length === 0
        ? {}
        : { relatedLocations: rest.map((s, i) => ({ id: i + 1, physicalLocation: physical(s, cwd), message: { text: 'also here' } })) }),
      partialFingerprints: { 'busscopeWarningId/v1': w.id },
      properties: { fails: fails(failOn, w), evidence: w.evidence, subjects: w.subjects, since: w.since },
    };
  });
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'busscope',
            version: PROBE_VERSION,
            rules: WARNING_KINDS.map((kind) => ({ id: kind, name: ruleName(kind) })),
          },
        },
        originalUriBaseIds: { [SRCROOT]: { uri: pathToFileURL(cwd).href.replace(/\/?$/, '/') } },
        results,
      },
    ],
  };
}
