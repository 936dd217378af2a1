// The layering rules of the repo, checked with the TypeScript compiler API (already a dev dependency;
// the project takes no new ones, so no ESLint or dependency-cruiser):
//   probe-imports-no-app          runtime-probe/ imports nothing from extension/ or webview/
//   webview-imports-no-extension  webview/ imports nothing from extension/
//   no-vscode                     neither runtime-probe/ nor webview/ imports `vscode`
//   analysis-no-node-builtins     runtime-probe/src/analysis (model, analyses) imports no Node built-in
//   otel-only-in-otel             only runtime-probe/src/otel imports @opentelemetry/* (an optional peer:
//                                 every other entry must load without it)
//   browser-no-node-builtins      nothing the browser entry (runtime-probe/src/browser/index.ts) reaches
//                                 through relative imports imports a Node built-in
//   analysis-no-dom               …and type-checks with the ES library alone: no DOM lib, no `vscode` or
//                                 Node types, so a `document`/`window`/`process` global is an error
// Imports are listed by `ts.preProcessFile` (static, type-only, dynamic `import()` and `require`), so a
// type-only import breaks a rule too: the webview must not even borrow a type from the extension.
//
// Usage: node scripts/check-layers.mjs [--root <dir>]   (exit 0 clean, 1 violations, 2 usage)
// One line per violation: `<file>:<line>:<column>: [<rule>] <what>` (clickable in terminals).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ts = createRequire(import.meta.url)('typescript');

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const NODE_BUILTINS = new Set(builtinModules);

/**
 * @typedef {{ file: string, line: number, column: number, rule: string, message: string }} Violation
 * @typedef {{ rule: string, from: string, except?: string, forbid: (target: Target) => string | null }} ImportRule
 * @typedef {{ specifier: string, resolved: string | null }} Target  resolved: repo-relative path of a relative import
 */

const isUnder = (rel, dir) => rel === dir || rel.startsWith(`${dir}/`);

/** @type {ImportRule[]} */
const IMPORT_RULES = [
  {
    rule: 'probe-imports-no-app',
    from: 'runtime-probe',
    forbid: (t) =>
      t.resolved !== null && (isUnder(t.resolved, 'extension') || isUnder(t.resolved, 'webview'))
        ? `imports '${t.specifier}' from ${t.resolved.split('/')[0]}/; the probe package ships alone`
        : null,
  },
  {
    rule: 'webview-imports-no-extension',
    from: 'webview',
    forbid: (t) =>
      t.resolved !== null && isUnder(t.resolved, 'extension')
        ? `imports '${t.specifier}' from extension/; shared code lives in runtime-probe/src/analysis`
        : null,
  },
  ...['runtime-probe', 'webview'].map((from) => ({
    rule: 'no-vscode',
    from,
    forbid: (t) => (t.specifier === 'vscode' ? `imports 'vscode'; only extension/ may` : null),
  })),
  {
    rule: 'otel-only-in-otel',
    from: 'runtime-probe/src',
    except: 'runtime-probe/src/otel',
    forbid: (t) =>
      t.specifier.startsWith('@opentelemetry/') ? `imports '${t.specifier}'; only runtime-probe/src/otel may (an optional peer dependency)` : null,
  },
  {
    rule: 'analysis-no-node-builtins',
    from: 'runtime-probe/src/analysis',
    forbid: (t) =>
      t.resolved === null && (t.specifier.startsWith('node:') || NODE_BUILTINS.has(t.specifier.split('/')[0]))
        ? `imports Node's '${t.specifier}'; the model and analyses also run in the webview`
        : null,
  },
];

/** Repo-relative paths (forward slashes) of the source files below `dir`. */
function sourceFiles(root, dir) {
  const out = [];
  const walk = (abs) => {
    for (const name of readdirSync(abs)) {
      if (name === 'node_modules' || name === 'dist') continue;
      const p = path.join(abs, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(path.relative(root, p).split(path.sep).join('/'));
    }
  };
  if (existsSync(path.join(root, dir))) walk(path.join(root, dir));
  return out.sort();
}

function position(text, offset) {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++)
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  return { line, column: offset - lineStart + 1 };
}

/** Every import of `rel` that breaks an import rule. */
function importViolations(root, rel) {
  const rules = IMPORT_RULES.filter((r) => isUnder(rel, r.from) && !(r.except !== undefined && isUnder(rel, r.except)));
  if (rules.length === 0) return [];
  const text = readFileSync(path.join(root, rel), 'utf8');
  const info = ts.preProcessFile(text, true, true);
  /** @type {Violation[]} */
  const out = [];
  for (const ref of [...info.importedFiles, ...info.referencedFiles]) {
    const specifier = ref.fileName;
    const relative = specifier.startsWith('./') || specifier.startsWith('../');
    const resolved = relative ? path.posix.normalize(path.posix.join(path.posix.dirname(rel), specifier)) : null;
    for (const r of rules) {
      const message = r.forbid({ specifier, resolved });
      if (message !== null) out.push({ file: rel, ...position(text, ref.pos), rule: r.rule, message });
    }
  }
  return out;
}

/** Type-checks runtime-probe/src/analysis with the ES library only (what the base tsconfig targets, minus every host). */
function domViolations(root) {
  const files = sourceFiles(root, 'runtime-probe/src/analysis').filter((f) => /\.(ts|mts|cts)$/.test(f));
  if (files.length === 0) return [];
  const program = ts.createProgram(
    files.map((f) => path.join(root, f)),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.Preserve,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.esnext.disposable.d.ts'],
      types: [],
      typeRoots: [],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      isolatedModules: true,
      esModuleInterop: true,
      resolveJsonModule: true,
    },
  );
  /** @type {Violation[]} */
  const out = [];
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const text = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    if (d.file === undefined || d.start === undefined) {
      out.push({ file: 'runtime-probe/src/analysis', line: 1, column: 1, rule: 'analysis-no-dom', message: text });
      continue;
    }
    const file = path.relative(root, d.file.fileName).split(path.sep).join('/');
    // Only the core's own files: the protocol it imports may use what every host has (TextEncoder,
    // setTimeout); the normal typecheck covers it with its own lib set.
    if (!isUnder(file, 'runtime-probe/src/analysis')) continue;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    out.push({
      file,
      line: line + 1,
      column: character + 1,
      rule: 'analysis-no-dom',
      message: `${text} (the model and analyses see the ES library only: no DOM, Node or vscode globals)`,
    });
  }
  return out;
}

/** The browser entries and everything they reach through relative imports. */
export const BROWSER_ENTRY = 'runtime-probe/src/browser/index.ts';
export const BROWSER_WORKER_ENTRY = 'runtime-probe/src/browser/worker.ts';
export const BROWSER_PAYLOADS_ENTRY = 'runtime-probe/src/browser/payloads.ts';

function resolveRelative(root, from, specifier) {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  for (const candidate of [base, `${base}.ts`, `${base}.mts`, `${base}.js`, `${base}/index.ts`]) {
    if (existsSync(path.join(root, candidate)) && statSync(path.join(root, candidate)).isFile()) return candidate;
  }
  return null;
}

/** Files reached from a browser entry that import a Node built-in (type-only imports included: a page has no Node types either). */
function browserViolations(root, entry) {
  if (!existsSync(path.join(root, entry))) return [];
  /** @type {Violation[]} */
  const out = [];
  const seen = new Set([entry]);
  const queue = [entry];
  const via = new Map([[entry, null]]);
  while (queue.length > 0) {
    const rel = queue.shift();
    const text = readFileSync(path.join(root, rel), 'utf8');
    const info = ts.preProcessFile(text, true, true);
    for (const ref of info.importedFiles) {
      const specifier = ref.fileName;
      if (specifier.startsWith('./') || specifier.startsWith('../')) {
        const next = resolveRelative(root, rel, specifier);
        if (next !== null && !seen.has(next)) {
          seen.add(next);
          via.set(next, rel);
          queue.push(next);
        }
      } else if (specifier.startsWith('node:') || NODE_BUILTINS.has(specifier.split('/')[0])) {
        const chain = [];
        for (let f = via.get(rel); f !== null && f !== undefined; f = via.get(f)) chain.push(f);
        const from = chain.length === 0 ? '' : ` (reached from the browser entry through ${chain.join(' ← ')})`;
        out.push({
          file: rel,
          ...position(text, ref.pos),
          rule: 'browser-no-node-builtins',
          message: `imports Node's '${specifier}'${from}; busscope-probe/browser runs in pages and workers`,
        });
      }
    }
  }
  return out;
}

/** Every violation under `root` (a checkout of this repo, or a copy of part of it). */
export function checkLayers(root) {
  const violations = [];
  for (const dir of ['runtime-probe/src', 'webview/src']) {
    for (const rel of sourceFiles(root, dir)) violations.push(...importViolations(root, rel));
  }
  violations.push(...domViolations(root));
  violations.push(...browserViolations(root, BROWSER_ENTRY));
  // The worker and payloads entries reach the browser entry's files too: each violation is reported once.
  const seen = new Set(violations.map((v) => `${v.file}:${v.line}:${v.column}`));
  for (const entry of [BROWSER_WORKER_ENTRY, BROWSER_PAYLOADS_ENTRY]) {
    for (const v of browserViolations(root, entry)) {
      const key = `${v.file}:${v.line}:${v.column}`;
      if (!seen.has(key)) violations.push(v);
      seen.add(key);
    }
  }
  return violations;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  let root = repo;
  if (args.length === 2 && args[0] === '--root') root = path.resolve(args[1]);
  else if (args.length !== 0) {
    console.error('usage: node scripts/check-layers.mjs [--root <dir>]');
    process.exit(2);
  }
  const violations = checkLayers(root);
  for (const v of violations) console.error(`${v.file}:${v.line}:${v.column}: [${v.rule}] ${v.message}`);
  if (violations.length > 0) {
    console.error(`layering: ${violations.length} violation${violations.length === 1 ? '' : 's'}`);
    process.exit(1);
  }
  console.log('layering: ok (runtime-probe ↛ extension/webview, webview ↛ extension, analysis: no vscode, Node or DOM; browser entry: no Node built-ins)');
}
