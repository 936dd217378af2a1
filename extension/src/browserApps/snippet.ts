// What *Accept Browser Apps* shows and copies: the `connect` call with this server's URL and token.
// No `vscode` here.

/** The code a page adds (ESM; `name` is how the Apps view lists it). */
export function connectSnippet(url: string, token: string): string {
  return [
    "import { connect } from 'busscope-probe/browser';",
    `connect({ url: ${JSON.stringify(url)}, token: ${JSON.stringify(token)}, name: document.title || location.host });`,
  ].join('\n');
}

/** Reads the allowlist setting: valid patterns, and a message per ignored entry. */
export function readExtraOrigins(value: unknown, check: (pattern: unknown) => string | undefined): { readonly origins: string[]; readonly ignored: string[] } {
  const origins: string[] = [];
  const ignored: string[] = [];
  if (!Array.isArray(value)) return { origins, ignored };
  for (const entry of value) {
    const problem = check(entry);
    if (problem === undefined) origins.push(entry as string);
    else ignored.push(`${JSON.stringify(entry)}: ${problem}`);
  }
  return { origins, ignored };
}
