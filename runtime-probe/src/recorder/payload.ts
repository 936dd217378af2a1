// Payload capture (off by default): the app's `sanitize` hook first, then JSON, cut at the cap.
// Never throws: an unserializable payload is recorded as a JSON string saying so.

export type PayloadSanitizer = (payload: unknown, type: string, bus: string) => unknown;

export interface CapturedPayload {
  json: string;
  truncated: boolean;
}

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return `[function ${(value as Function).name || 'anonymous'}]`;
  if (typeof value === 'symbol') return value.toString();
  return value;
}

export function capturePayload(
  payload: unknown,
  type: string,
  bus: string,
  sanitize: PayloadSanitizer | undefined,
  cap: number,
): CapturedPayload {
  let json: string;
  try {
    const value = sanitize === undefined ? payload : sanitize(payload, type, bus);
    json = JSON.stringify(value, replacer) ?? 'null';
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    json = JSON.stringify(`[unserializable payload: ${why}]`);
  }
  if (json.length <= cap) return { json, truncated: false };
  return { json: json.slice(0, cap), truncated: true };
}
