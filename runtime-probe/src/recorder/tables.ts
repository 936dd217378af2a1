// Interned strings and sites. Ids are dense from 1 (0 means "none"), assigned on first use and
// never reused, so a sink only needs to know how many definitions it has been sent.
//
// Sites are captured cheaply on the hot path (raw V8 positions, see sites.ts) and resolved — source
// mapped, then their file and function names interned — once per site, off the hot path: when their
// definitions are first sent, or when something reads them (a snapshot).

// The protocol's modules by name, not its index: a page bundle must not keep the reader's module state.
import { MAX_STRING_TABLE_BYTES, MAX_STRING_TABLE_ENTRIES, OVERFLOW_NAME } from '../protocol/limits';
import type { SourceSite } from '../bus/tracer';
import type { FrameMapper, RawFrame, ResolvedFrame } from './frames';

/**
 * Bounded: an app that makes up names (`user.${id}.updated` for every user) must not grow the
 * probe's heap with them. Past `maxEntries` strings or `maxBytes` of text (2 bytes per UTF-16 code
 * unit) the table is full for good, and every new name gets one shared id whose text is
 * OVERFLOW_NAME; the wire stays dense and unchanged (PROTOCOL.md, "String table caps").
 */
export class StringTable {
  private readonly ids = new Map<string, number>();
  /** Index = id; [0] unused. */
  readonly texts: string[] = [''];
  private chars = 0;
  private full = false;
  private overflowId = 0;
  /** Lookups of names that did not fit and got the overflow id (each dispatch of such a name counts). */
  overflowed = 0;
  private readonly maxChars: number;

  constructor(
    /** Strings at most, the overflow string included. */
    readonly maxEntries = MAX_STRING_TABLE_ENTRIES,
    maxBytes = MAX_STRING_TABLE_BYTES,
  ) {
    // Room is kept for the overflow string itself, so the table never exceeds either bound.
    this.maxChars = Math.floor(maxBytes / 2) - OVERFLOW_NAME.length;
  }

  intern(text: string): number {
    const id = this.ids.get(text);
    if (id !== undefined) return id;
    if (!this.full && this.texts.length < this.maxEntries && this.chars + text.length <= this.maxChars) {
      const next = this.texts.length;
      this.texts.push(text);
      this.ids.set(text, next);
      this.chars += text.length;
      return next;
    }
    return this.overflow();
  }

  /** True once a name did not fit: new names share the overflow id from then on. */
  get isFull(): boolean {
    return this.full;
  }

  /** Text held, at 2 bytes per UTF-16 code unit. */
  get bytes(): number {
    return this.chars * 2;
  }

  private overflow(): number {
    this.full = true;
    this.overflowed++;
    let id = this.overflowId;
    if (id === 0) {
      // An app may have used the text itself as a name already: then that id is the bucket.
      id = this.ids.get(OVERFLOW_NAME) ?? this.texts.length;
      if (id === this.texts.length) {
        this.texts.push(OVERFLOW_NAME);
        this.ids.set(OVERFLOW_NAME, id);
        this.chars += OVERFLOW_NAME.length;
      }
      this.overflowId = id;
    }
    return id;
  }

  /** The id of `text`, 0 when it was never interned. */
  idOf(text: string): number {
    return this.ids.get(text) ?? 0;
  }

  /** Highest defined id. */
  get last(): number {
    return this.texts.length - 1;
  }
}

/**
 * A site as the bus sees it (`sub.site`) and as the wire defines it. Its fields resolve on first
 * read (source mapping happens then, once), so holding one costs nothing on the hot path.
 */
export class SiteEntry implements SourceSite {
  /** The raw frame still to resolve; null once resolved. */
  private pending: RawFrame | null;
  private resolvedFile = '';
  private resolvedLine = 0;
  private resolvedColumn = 0;
  private resolvedFunction: string | undefined = undefined;
  private ids: { readonly fileId: number; readonly functionId: number } | null = null;

  constructor(
    readonly id: number,
    private readonly table: SiteTable,
    pending: RawFrame | null,
    resolved: ResolvedFrame | null,
  ) {
    this.pending = pending;
    if (resolved !== null) this.set(resolved);
  }

  get file(): string {
    if (this.pending !== null) this.resolve();
    return this.resolvedFile;
  }
  get line(): number {
    if (this.pending !== null) this.resolve();
    return this.resolvedLine;
  }
  get column(): number {
    if (this.pending !== null) this.resolve();
    return this.resolvedColumn;
  }
  get functionName(): string | undefined {
    if (this.pending !== null) this.resolve();
    return this.resolvedFunction;
  }
  /** String id of `file` (interned on first use). */
  get fileId(): number {
    return this.interned().fileId;
  }
  /** String id of `functionName`, 0 without one. */
  get functionId(): number {
    return this.interned().functionId;
  }

  private interned(): { readonly fileId: number; readonly functionId: number } {
    let ids = this.ids;
    if (ids === null) {
      const strings = this.table.strings;
      const fn = this.functionName;
      ids = this.ids = { fileId: strings.intern(this.file), functionId: fn === undefined ? 0 : strings.intern(fn) };
    }
    return ids;
  }

  private resolve(): void {
    const pending = this.pending;
    if (pending === null) return;
    this.pending = null;
    this.set(this.table.resolveFrame(pending));
  }

  private set(f: ResolvedFrame): void {
    this.resolvedFile = f.file;
    this.resolvedLine = f.line;
    this.resolvedColumn = f.column;
    this.resolvedFunction = f.functionName;
  }
}

/** What the position cache holds for a frame that is not a site (the bus's, the probe's, node's). */
export const NOT_A_SITE = 0;
const MAX_SKIPPED_POSITIONS = 10_000;
/** Columns below this share a numeric key with their line; longer lines (minified code) use strings. */
const COLUMN_SPAN = 0x1000000;

export class SiteTable {
  /** Raw V8 position (file, then line/column) → its site, or NOT_A_SITE. */
  private readonly byPosition = new Map<string, Map<number | string, SiteEntry | typeof NOT_A_SITE>>();
  private skipped = 0;
  /** Fallback capture (stack text): keyed by the raw stack line. */
  private readonly byKey = new Map<string, SiteEntry>();
  /** Index = id; [0] unused. */
  readonly entries: (SiteEntry | undefined)[] = [undefined];
  /** Entries 1 … this have been resolved and interned (see `resolveThrough`). */
  private resolvedThrough = 0;

  constructor(
    readonly strings: StringTable,
    /** Source mapping, injected (Node's lives in source-map.ts; the core imports no Node built-in). */
    readonly mapper?: FrameMapper,
  ) {}

  /** The site a stack line shows for `raw`: mapped when there is a mapper, else as the runtime printed it. */
  resolveFrame(raw: RawFrame): ResolvedFrame {
    return this.mapper === undefined ? raw.unmapped : this.mapper.resolve(raw);
  }

  /** The site or NOT_A_SITE recorded for a raw V8 position; undefined when unseen. */
  atPosition(file: string, line: number, column: number): SiteEntry | typeof NOT_A_SITE | undefined {
    const byLine = this.byPosition.get(file);
    return byLine === undefined ? undefined : byLine.get(column < COLUMN_SPAN ? line * COLUMN_SPAN + column : `${line}:${column}`);
  }

  /** A new site at a raw position: resolved later (`pending`), or already (`resolved`). */
  addRaw(raw: RawFrame, resolved: ResolvedFrame | null): SiteEntry {
    const entry = new SiteEntry(this.entries.length, this, resolved === null ? raw : null, resolved);
    this.entries.push(entry);
    this.setPosition(raw.file, raw.line, raw.column, entry);
    return entry;
  }

  /** Remembers that a raw position is not a site (bounded: past the cap, such frames are just re-checked). */
  skipPosition(file: string, line: number, column: number): void {
    if (this.skipped >= MAX_SKIPPED_POSITIONS) return;
    this.skipped++;
    this.setPosition(file, line, column, NOT_A_SITE);
  }

  private setPosition(file: string, line: number, column: number, value: SiteEntry | typeof NOT_A_SITE): void {
    let byLine = this.byPosition.get(file);
    if (byLine === undefined) this.byPosition.set(file, (byLine = new Map()));
    byLine.set(column < COLUMN_SPAN ? line * COLUMN_SPAN + column : `${line}:${column}`, value);
  }

  /** Fallback capture: the site of a stack line already seen. */
  get(key: string): SiteEntry | undefined {
    return this.byKey.get(key);
  }

  /** Fallback capture: a site parsed from stack text (already as the runtime printed it, so resolved). */
  add(key: string, file: string, line: number, column: number, functionName: string | undefined): SiteEntry {
    const entry = new SiteEntry(this.entries.length, this, null, { file, line, column, functionName });
    this.entries.push(entry);
    this.byKey.set(key, entry);
    return entry;
  }

  /**
   * Resolves and interns every site up to id `last` (call before sending definitions: resolving can
   * intern new strings, which must be defined before the sites that use them).
   */
  resolveThrough(last: number): void {
    const entries = this.entries;
    for (let id = this.resolvedThrough + 1; id <= last; id++) {
      const e = entries[id] as SiteEntry;
      void e.fileId;
      void e.functionId;
    }
    if (last > this.resolvedThrough) this.resolvedThrough = last;
  }

  get last(): number {
    return this.entries.length - 1;
  }
}
