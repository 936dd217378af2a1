// Interned strings and sites. Ids are dense from 1 (0 means "none"), assigned on first use and
// never reused, so a sink only needs to know how many definitions it has been sent.

import type { SiteInfo } from '../protocol/index';
import type { SourceSite } from '../bus/tracer';

export class StringTable {
  private readonly ids = new Map<string, number>();
  /** Index = id; [0] unused. */
  readonly texts: string[] = [''];

  intern(text: string): number {
    let id = this.ids.get(text);
    if (id === undefined) {
      id = this.texts.length;
      this.texts.push(text);
      this.ids.set(text, id);
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

/** A site as the bus sees it (`sub.site`) and as the wire defines it. */
export class SiteEntry implements SourceSite {
  readonly info: SiteInfo;
  constructor(
    readonly id: number,
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly functionName: string | undefined,
    readonly fileId: number,
    readonly functionId: number,
  ) {
    this.info = Object.freeze({ file, line, column, functionName: functionName ?? null });
  }
}

export class SiteTable {
  /** Keyed by the raw stack line, so a repeated site costs one map lookup. */
  private readonly byKey = new Map<string, SiteEntry>();
  /** Index = id; [0] unused. */
  readonly entries: (SiteEntry | undefined)[] = [undefined];

  constructor(private readonly strings: StringTable) {}

  get(key: string): SiteEntry | undefined {
    return this.byKey.get(key);
  }

  add(key: string, file: string, line: number, column: number, functionName: string | undefined): SiteEntry {
    const fileId = this.strings.intern(file);
    const functionId = functionName === undefined ? 0 : this.strings.intern(functionName);
    const entry = new SiteEntry(this.entries.length, file, line, column, functionName, fileId, functionId);
    this.entries.push(entry);
    this.byKey.set(key, entry);
    return entry;
  }

  get last(): number {
    return this.entries.length - 1;
  }
}
