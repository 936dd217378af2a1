// Many types, few warnings. An app that subscribes to or dispatches `user.${id}.updated` per id
// has thousands of types that differ only in an id; one warning per type buried the rest of the
// Warnings tree and cost each analyzer run the building, fingerprinting and sorting of thousands
// of warnings. So the per-type analyses (never dispatched, nobody listens) group their findings:
// - a family — names equal once their id-like parts are replaced by `#` (`user.#.updated`) — with
//   at least FAMILY_WARNING_MIN findings on one bus becomes one warning naming an example;
// - one kind says at most INDIVIDUAL_WARNING_CAP warnings per bus (families and single types); the
//   rest become one "N more" warning.
// A typo (a finding with a near miss) is shown before the rest, in singles and as a group's example.
import type { EventTypeState } from '../model/entities';
import { NO_DEADLINE, type RunDeadline } from './runDeadline';
import type { TypeGroupEvidence } from './warning';

/** Findings of one kind in one family (on one bus) from which they are one warning. */
export const FAMILY_WARNING_MIN = 20;
/** Warnings of one kind per bus (families, at most half of them, and single types); the rest are one "N more" warning. */
export const INDIVIDUAL_WARNING_CAP = 200;
/** Example type names a group warning carries. */
const GROUP_EXAMPLES = 5;
/** Names longer than this are their own family (the same bound the near-miss search uses). */
const MAX_FAMILY_NAME_LENGTH = 256;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isAlnum(c: number): boolean {
  return isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/**
 * The family of an event name: each id-like part replaced by `#`, or null when the name has none.
 * A part is a run of ASCII letters and digits; it is id-like when it holds a digit and is written
 * in one case (`17`, `a3f9c2`, `K3J9`, each group of a uuid); a camelCase part keeps its words and
 * only its digit runs become `#` (`player2Joined` → `player#Joined`). One pass, linear.
 */
export function typeFamily(name: string): string | null {
  return scanFamily(name, false);
}

/**
 * The id-like parts of a name — what `typeFamily` replaces by `#` — joined by `#` in order ('' when
 * none, or when the name is too long to have a family): `user.17.updated` → `17`,
 * `player2Joined` → `2`, `a.k3j9.b.7` → `k3j9#7`. Two names with different id parts name
 * different instances (`user.17.updated`, `user.18.updated`), never a typo of each other.
 */
export function typeIdParts(name: string): string {
  return scanFamily(name, true) ?? '';
}

/** One pass for both: the family (`ids` false) or the id parts (`ids` true). */
function scanFamily(name: string, ids: boolean): string | null {
  if (name.length > MAX_FAMILY_NAME_LENGTH) return null;
  let out = '';
  let changed = false;
  let i = 0;
  const idPart = (part: string): void => {
    if (ids) out += changed ? `#${part}` : part;
    else out += '#';
    changed = true;
  };
  while (i < name.length) {
    const c = name.charCodeAt(i);
    if (!isAlnum(c)) {
      let j = i + 1;
      while (j < name.length && !isAlnum(name.charCodeAt(j))) j++;
      if (!ids) out += name.slice(i, j);
      i = j;
      continue;
    }
    let j = i;
    let digits = false;
    let upper = false;
    let lower = false;
    for (; j < name.length; j++) {
      const d = name.charCodeAt(j);
      if (!isAlnum(d)) break;
      if (isDigit(d)) digits = true;
      else if (d <= 90) upper = true;
      else lower = true;
    }
    const part = name.slice(i, j);
    if (!digits) {
      if (!ids) out += part;
    } else if (!(upper && lower)) idPart(part);
    else if (ids) for (const run of part.match(/[0-9]+/g) ?? []) idPart(run);
    else {
      out += part.replace(/[0-9]+/g, '#');
      changed = true;
    }
    i = j;
  }
  return changed ? out : null;
}

/** `idOf` when the family of a type is not known yet and this run's family budget is spent. */
export const FAMILY_PENDING = -2;

/**
 * Names whose family is worked out per analyzer run (about a microsecond each: a pass over the name
 * and a map look-up). A snapshot of 100,000 types would otherwise pay for all of them in its first
 * run; the rest are worked out in the following runs and, until then, counted as partial.
 */
export const DEFAULT_FAMILY_BUDGET = 10_000;

/** Families a run works out even when its deadline has passed, so that every run moves on. */
export const MIN_FAMILIES_PER_RUN = 64;

/** How far this run's family look-ups got. */
export interface FamilyRunProgress {
  /** Families worked out in this run (at most the budget). */
  readonly computed: number;
  /** Findings grouped in this run whose family was still pending. */
  readonly pending: number;
}

/**
 * Type index → its family on its bus, as a small number (-1: none), so grouping a run's findings
 * costs no string work. Names never change, so this holds while the model's generation does. At
 * most the run's budget of names is worked out per run (`beginRun`); beyond it `idOf` says
 * FAMILY_PENDING and a later run works it out.
 */
export class TypeFamilies {
  private ids = new Int32Array(0);
  /** ids[i] is valid for type indices with known[i] === 1. */
  private known = new Uint8Array(0);
  private readonly idByKey = new Map<string, number>();
  private readonly patterns: string[] = [];
  private budget = Infinity;
  private deadline: RunDeadline = NO_DEADLINE;
  private computed = 0;
  private pending = 0;

  /** Starts a run that may work out `budget` families (Infinity: all of them). */
  beginRun(budget: number, deadline: RunDeadline = NO_DEADLINE): void {
    this.budget = budget;
    this.deadline = deadline;
    this.computed = 0;
    this.pending = 0;
  }

  get progress(): FamilyRunProgress {
    return { computed: this.computed, pending: this.pending };
  }

  /** The family id of `t` (-1 when its name has no id-like part, FAMILY_PENDING beyond the budget). */
  idOf(t: EventTypeState): number {
    const i = t.index;
    if (i >= this.known.length) this.grow(i + 1);
    if (this.known[i] === 1) return this.ids[i];
    if (this.computed >= this.budget || this.deadline.stops(this.computed, MIN_FAMILIES_PER_RUN)) return FAMILY_PENDING;
    this.computed++;
    this.deadline.spend(1);
    const family = typeFamily(t.name);
    let id = -1;
    if (family !== null) {
      const key = `${t.bus}\u0000${family}`;
      id = this.idByKey.get(key) ?? -1;
      if (id < 0) {
        id = this.patterns.length;
        this.patterns.push(family);
        this.idByKey.set(key, id);
      }
    }
    this.ids[i] = id;
    this.known[i] = 1;
    return id;
  }

  /** Counts findings grouped in this run without a known family (the run is partial). */
  notePending(n: number): void {
    this.pending += n;
  }

  pattern(id: number): string {
    return this.patterns[id];
  }

  private grow(min: number): void {
    const size = Math.max(min, this.known.length * 2, 64);
    const ids = new Int32Array(size);
    ids.set(this.ids);
    const known = new Uint8Array(size);
    known.set(this.known);
    this.ids = ids;
    this.known = known;
  }
}

export interface TypeFinding {
  readonly t: EventTypeState;
  /** A near miss was found: a likely typo, shown first. */
  readonly typo: boolean;
}

export interface FindingGroup<F extends TypeFinding> {
  readonly bus: number;
  /** The family's pattern, or null for the "N more" group. */
  readonly pattern: string | null;
  /** Typos first, then in the order the types were first seen. */
  readonly members: readonly F[];
}

export interface GroupedFindings<F extends TypeFinding> {
  readonly singles: readonly F[];
  readonly groups: readonly FindingGroup<F>[];
}

/** Typos first, each part in the order given (findings come in type order): a partition, not a sort. */
function typosFirst<F extends TypeFinding>(list: readonly F[]): F[] {
  const out: F[] = [];
  for (const f of list) if (f.typo) out.push(f);
  if (out.length === 0) return list.slice();
  for (const f of list) if (!f.typo) out.push(f);
  return out;
}

/**
 * Splits findings (in type order) into single warnings and groups, per bus, so that one kind gives
 * at most INDIVIDUAL_WARNING_CAP + 1 warnings per bus: families of FAMILY_WARNING_MIN findings or
 * more (the largest first, at most half the cap), then single findings (typos first), then one
 * "N more" group for the rest. Findings whose family this run's budget did not reach join the
 * "N more" group until a later run places them (typos get their family worked out first), so the
 * singles do not churn while the families are worked out.
 */
export function groupFindings<F extends TypeFinding>(findings: readonly F[], families: TypeFamilies): GroupedFindings<F> {
  const ids = new Int32Array(findings.length);
  for (let i = 0; i < findings.length; i++) if (findings[i].typo) ids[i] = families.idOf(findings[i].t);
  for (let i = 0; i < findings.length; i++) if (!findings[i].typo) ids[i] = families.idOf(findings[i].t);
  const byFamily = new Map<number, F[]>();
  let pending = 0;
  for (let i = 0; i < findings.length; i++) {
    const id = ids[i];
    if (id < 0) {
      if (id === FAMILY_PENDING) pending++;
      continue;
    }
    const list = byFamily.get(id);
    if (list === undefined) byFamily.set(id, [findings[i]]);
    else list.push(findings[i]);
  }
  families.notePending(pending);
  const large: { id: number; members: F[] }[] = [];
  for (const [id, members] of byFamily) if (members.length >= FAMILY_WARNING_MIN) large.push({ id, members });
  large.sort((a, b) => b.members.length - a.members.length || a.members[0].t.index - b.members[0].t.index);
  const groups: FindingGroup<F>[] = [];
  const slotsUsed = new Map<number, number>();
  const grouped = new Set<number>();
  for (const { id, members } of large) {
    const bus = members[0].t.bus;
    const used = slotsUsed.get(bus) ?? 0;
    if (used >= INDIVIDUAL_WARNING_CAP / 2) continue;
    slotsUsed.set(bus, used + 1);
    grouped.add(id);
    groups.push({ bus, pattern: families.pattern(id), members: typosFirst(members) });
  }
  const singlesByBus = new Map<number, F[]>();
  const pendingByBus = new Map<number, F[]>();
  for (let i = 0; i < findings.length; i++) {
    const f = findings[i];
    const id = ids[i];
    if (grouped.size > 0 && grouped.has(id)) continue;
    const into = id === FAMILY_PENDING ? pendingByBus : singlesByBus;
    const list = into.get(f.t.bus);
    if (list === undefined) into.set(f.t.bus, [f]);
    else list.push(f);
  }
  const singles: F[] = [];
  for (const [bus, list] of singlesByBus) {
    const slots = INDIVIDUAL_WARNING_CAP - (slotsUsed.get(bus) ?? 0);
    const waiting = pendingByBus.get(bus);
    pendingByBus.delete(bus);
    if (list.length <= slots) {
      for (const f of list) singles.push(f);
      if (waiting !== undefined) groups.push({ bus, pattern: null, members: typosFirst(waiting) });
      continue;
    }
    const ordered = typosFirst(list);
    for (let i = 0; i < slots; i++) singles.push(ordered[i]);
    const rest = ordered.slice(slots);
    groups.push({ bus, pattern: null, members: waiting === undefined ? rest : typosFirst(rest.concat(waiting)) });
  }
  for (const [bus, waiting] of pendingByBus) groups.push({ bus, pattern: null, members: typosFirst(waiting) });
  return { singles, groups };
}

/** The `group` evidence of a group warning. */
export function groupEvidence(group: FindingGroup<TypeFinding>): TypeGroupEvidence {
  return {
    by: group.pattern === null ? 'more' : 'family',
    pattern: group.pattern,
    types: group.members.length,
    examples: group.members.slice(0, GROUP_EXAMPLES).map((f) => f.t.name),
  };
}

/** The group's first members (typos first), for `subjects.types`. */
export function groupExamples<F extends TypeFinding>(group: FindingGroup<F>): readonly F[] {
  return group.members.slice(0, GROUP_EXAMPLES);
}

/** `"user.#.updated"` family / `N more types` wording shared by the group warnings. */
export function groupLabel(group: FindingGroup<TypeFinding>, busName: string): string {
  const n = group.members.length.toLocaleString('en-US');
  return group.pattern === null ? `${n} more types on the "${busName}" bus` : `${n} types of the family "${group.pattern}"`;
}

/** Group warning ids: a different prefix than the per-type ids, so no event name can collide. */
export function groupWarningId(kind: string, group: FindingGroup<TypeFinding>): string {
  return group.pattern === null ? `${kind}/more:${group.bus}` : `${kind}/family:${group.bus}:${group.pattern}`;
}
