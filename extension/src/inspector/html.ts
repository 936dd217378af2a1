// The inspector page: one script and one stylesheet from dist/webview, under a strict Content
// Security Policy (nothing inline without the per-load nonce, nothing remote). No `vscode` here, so
// a test can check the policy.

export interface InspectorHtmlInput {
  /** `webview.cspSource`. */
  readonly cspSource: string;
  /** `webview.asWebviewUri(dist/webview/main.js)`, as a string. */
  readonly scriptUri: string;
  readonly styleUri: string;
  readonly nonce: string;
}

/** 32 random characters from [A-Za-z0-9] (crypto-strength when `random` is). */
export function makeNonce(random: (n: number) => Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  for (const b of random(32)) out += alphabet[b % alphabet.length];
  return out;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
  ].join('; ');
}

function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

export function inspectorHtml(input: InspectorHtmlInput): string {
  if (!/^[A-Za-z0-9]{16,}$/.test(input.nonce)) throw new TypeError('inspectorHtml: nonce must be at least 16 alphanumeric characters');
  const csp = contentSecurityPolicy(input.cspSource, input.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(input.styleUri)}" nonce="${input.nonce}">
<title>Busscope Inspector</title>
</head>
<body>
<div id="inspector-root"></div>
<script nonce="${input.nonce}" src="${attr(input.scriptUri)}"></script>
</body>
</html>
`;
}
