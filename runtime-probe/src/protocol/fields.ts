// Field checks shared by the client- and probe-message parsers. Each names the offending field, so
// a confused or hostile peer is refused with a message that says exactly what was wrong.

import { utf8Decode } from './bytes';
import { ProtocolError } from './errors';

export type JsonObject = Record<string, unknown>;

/** Parses a control frame body into a JSON object (`malformed` otherwise). */
export function parseJsonObject(body: Uint8Array): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(utf8Decode(body));
  } catch (e) {
    if (e instanceof ProtocolError) throw e;
    throw new ProtocolError('malformed', `control frame is not valid JSON (${(e as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ProtocolError('malformed', 'control message is not a JSON object');
  }
  return value as JsonObject;
}

/**
 * Throws `malformed` when the JSON text nests arrays/objects deeper than `maxDepth`. A byte scan,
 * far cheaper than the recursion `JSON.parse` would do on a 32,000-deep array.
 */
export function checkJsonDepth(body: Uint8Array, maxDepth: number): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) throw new ProtocolError('malformed', `control message nests deeper than ${maxDepth} levels`);
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}

export function bad(where: string, field: string, want: string): never {
  throw new ProtocolError('malformed', `${where}.${field} must be ${want}`);
}
export function str(o: JsonObject, where: string, f: string, maxLength = 4096): string {
  const v = o[f];
  if (typeof v !== 'string' || v.length > maxLength) bad(where, f, `a string of at most ${maxLength} characters`);
  return v;
}
export function optStr(o: JsonObject, where: string, f: string, maxLength = 4096): string | null {
  const v = o[f];
  if (v === null) return null;
  if (typeof v !== 'string' || v.length > maxLength) bad(where, f, `null or a string of at most ${maxLength} characters`);
  return v;
}
export function int(o: JsonObject, where: string, f: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const v = o[f];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) bad(where, f, `an integer in ${min}…${max}`);
  return v;
}
export function optInt(o: JsonObject, where: string, f: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | null {
  return o[f] === null ? null : int(o, where, f, min, max);
}
export function num(o: JsonObject, where: string, f: string): number {
  const v = o[f];
  if (typeof v !== 'number' || !Number.isFinite(v)) bad(where, f, 'a finite number');
  return v;
}
export function bool(o: JsonObject, where: string, f: string): boolean {
  const v = o[f];
  if (typeof v !== 'boolean') bad(where, f, 'a boolean');
  return v;
}
export function obj(o: JsonObject, where: string, f: string): JsonObject {
  const v = o[f];
  if (typeof v !== 'object' || v === null || Array.isArray(v)) bad(where, f, 'an object');
  return v as JsonObject;
}
export function arr(o: JsonObject, where: string, f: string, maxItems: number): unknown[] {
  const v = o[f];
  if (!Array.isArray(v) || v.length > maxItems) bad(where, f, `an array of at most ${maxItems} items`);
  return v;
}
/** Each item of `items` as an object (`where.f[i]` names a bad one). */
export function objAt(items: readonly unknown[], where: string, f: string, i: number): JsonObject {
  const v = items[i];
  if (typeof v !== 'object' || v === null || Array.isArray(v)) bad(where, `${f}[${i}]`, 'an object');
  return v as JsonObject;
}
