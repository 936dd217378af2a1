// Subscribe/dispatch sites from V8 call sites (the hot path) must be exactly what reading the stack
// text gives (what the probe did before, and what a user sees in a stack trace) — for every shape
// of call, with Node's source maps on (tsx turns them on for this file) and off — while costing one
// map hit for a site seen before, and leaving `Error.prepareStackTrace`/`stackTraceLimit` as found.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { captureSite, isInternalFrame, parseStackLine } from '../../../runtime-probe/src/recorder/sites';
import { SiteTable, StringTable, type SiteEntry } from '../../../runtime-probe/src/recorder/tables';
import { sourceMapper } from '../../../runtime-probe/src/recorder/source-map';

interface Site {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly functionName: string | undefined;
}

let table = new SiteTable(new StringTable(), sourceMapper);
const skipLines = new Map<string, number>();

/** Stands in for the tracer method the bus calls: the frame below it (`probe`) plays the bus's frame. */
function viaTracer(): SiteEntry | undefined {
  return captureSite(viaTracer, table, skipLines);
}

/** The reference: the first app frame of the stack text below `above`, parsed. */
function fromText(above: Function): Site | undefined {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 24;
  Error.captureStackTrace(holder, above);
  Error.stackTraceLimit = limit;
  for (const line of (holder.stack ?? '').split('\n').slice(1)) {
    const f = parseStackLine(line);
    if (f !== undefined && !isInternalFrame(f)) return f;
  }
  return undefined;
}

/** A plain "bus" method: its caller is the site. */
function subscribeLike(): SiteEntry | undefined {
  return viaTracer();
}

function plain(e: SiteEntry | undefined): Site | undefined {
  return e === undefined ? undefined : { file: e.file, line: e.line, column: e.column, functionName: e.functionName };
}

/** "The bus": captures the site of its caller both ways (a fresh table: the cold path each time). */
function probe(): { fast: Site | undefined; text: Site | undefined } {
  table = new SiteTable(new StringTable(), sourceMapper);
  const fast = plain(viaTracer());
  return { fast, text: fromText(probe) };
}

type Probe = ReturnType<typeof probe>;

function shapes(): Promise<[string, Probe][]> {
  const out: [string, Probe][] = [];
  function named(): Probe {
    return probe();
  }
  const arrow = (): Probe => probe();
  class Hud {
    mount(): Probe {
      return probe();
    }
    static create(): Probe {
      return probe();
    }
    get current(): Probe {
      return probe();
    }
    HudMount(): Probe {
      return probe();
    }
  }
  class Widget {
    readonly r: Probe;
    constructor() {
      this.r = probe();
    }
  }
  const obj = {
    go(): Probe {
      return probe();
    },
    alias: named,
    ['comp' + 'uted']: function (): Probe {
      return probe();
    },
  } as { go(): Probe; alias(): Probe; computed(): Probe };
  out.push(
    ['function', named()],
    ['arrow', arrow()],
    [
      'anonymous',
      (function (): Probe {
        return probe();
      })(),
    ],
  );
  out.push(['method', new Hud().mount()], ['static method', Hud.create()], ['getter', new Hud().current], ['name starts with its class', new Hud().HudMount()]);
  out.push(['constructor', new Widget().r], ['object method', obj.go()], ['aliased method', obj.alias()], ['computed name', obj.computed()]);
  out.push(['callback', [1].map(() => probe())[0]], ['call with a receiver', named.call({})], ['bound', named.bind(new Hud())()]);
  out.push(['new Function', new Function('p', 'return p()')(probe) as Probe]);
  async function later(): Promise<Probe> {
    await null;
    return probe();
  }
  return later().then((r) => [...out, ['after await', r]]);
}

async function assertSameAsText(mode: string): Promise<void> {
  const all = await shapes();
  for (const [shape, { fast, text }] of all) {
    assert.ok(text !== undefined, `${mode} ${shape}: the text form has a site`);
    assert.deepEqual(fast, text, `${mode}: ${shape}`);
  }
}

test('structured capture gives the site the stack text gives, for every kind of call, with source maps', async () => {
  assert.equal((process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled, true, 'tsx maps this file');
  await assertSameAsText('source maps on');
  // Mapped: sites name this TypeScript file.
  assert.match(probe().fast?.file ?? '', /site-capture\.test\.ts$/);
});

test('… and without source maps', async () => {
  const p = process as unknown as { setSourceMapsEnabled(on: boolean): void };
  p.setSourceMapsEnabled(false);
  try {
    await assertSameAsText('source maps off');
  } finally {
    p.setSourceMapsEnabled(true);
  }
});

test('a site seen before is the same entry; the stack API is restored; the site resolves lazily', () => {
  table = new SiteTable(new StringTable(), sourceMapper);
  const prepare = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  const entries: (SiteEntry | undefined)[] = [];
  for (let i = 0; i < 3; i++) entries.push(subscribeLike()); // one position, three captures
  assert.ok(entries[0] !== undefined);
  assert.equal(entries[1], entries[0]);
  assert.equal(entries[2], entries[0]);
  assert.equal(table.last, 1, 'one site defined');
  assert.equal(Error.prepareStackTrace, prepare);
  assert.equal(Error.stackTraceLimit, limit);
  // Not interned until resolved (when definitions are sent, or a field is read).
  assert.equal(table.strings.last, 0);
  table.resolveThrough(table.last);
  assert.ok(table.strings.last >= 1);
  assert.equal(table.strings.texts[entries[0].fileId], entries[0].file);
});

test('an app that installed its own Error.prepareStackTrace (a source-map hook) gets the sites its hook prints', () => {
  table = new SiteTable(new StringTable(), sourceMapper);
  const original = Error.prepareStackTrace;
  // A hook that reports every frame at /mapped/app.ts:7:3 in function "mapped".
  Error.prepareStackTrace = (error: Error, frames: NodeJS.CallSite[]) => `${error.name}\n${frames.map(() => '    at mapped (/mapped/app.ts:7:3)').join('\n')}`;
  try {
    const fast = plain(subscribeLike());
    assert.deepEqual(fast, { file: '/mapped/app.ts', line: 7, column: 3, functionName: 'mapped' });
  } finally {
    Error.prepareStackTrace = original;
  }
});

test('a site is never a frame of the bus or the probe', () => {
  table = new SiteTable(new StringTable(), sourceMapper);
  const site = subscribeLike();
  assert.ok(site);
  assert.ok(!isInternalFrame(site), `${site.file}:${site.line} ${site.functionName}`);
  assert.match(site.file, /site-capture\.test\.ts$/);
});
