// The workspace's event breakpoints ("break when `combat.hit` is dispatched", optionally only when
// a payload condition holds). Kept in the workspace's state, so they survive reloads; the probe of
// every attached app gets the list (`breakOn`) on every attach and every change. No `vscode` here:
// the store takes anything with `get`/`update` (VS Code's Memento fits).
import { Emitter } from '../../../runtime-probe/src/delegates/index';
import { MAX_BREAK_ON_TYPES, MAX_TYPE_NAME_LENGTH } from '../../../runtime-probe/src/protocol/index';
import { conditionProblem } from './conditions';

export interface EventBreakpoint {
  /** The event type (on every bus). */
  readonly type: string;
  /** A JavaScript expression over `payload` (and `type`); absent: break on every dispatch. */
  readonly condition?: string;
}

/** Where the list is kept (VS Code's `ExtensionContext.workspaceState`). */
export interface BreakpointMemento {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

export const EVENT_BREAKPOINTS_KEY = 'busscope.eventBreakpoints';

function checkType(where: string, type: unknown): string {
  if (typeof type !== 'string' || type === '' || type.length > MAX_TYPE_NAME_LENGTH) {
    throw new TypeError(
      `${where}: the event type must be a non-empty string of at most ${MAX_TYPE_NAME_LENGTH} characters (got ${typeof type === 'string' ? JSON.stringify(type) : typeof type})`,
    );
  }
  return type;
}

function checkCondition(where: string, type: string, condition: unknown): string | undefined {
  if (condition === undefined || condition === null) return undefined;
  if (typeof condition !== 'string') throw new TypeError(`${where}: the condition of "${type}" must be a string`);
  if (condition.trim() === '') return undefined;
  const problem = conditionProblem(condition);
  if (problem !== undefined) throw new TypeError(`${where}: the condition of "${type}" is not a valid expression: ${problem}`);
  return condition.trim();
}

function normalize(where: string, list: readonly EventBreakpoint[]): EventBreakpoint[] {
  const byType = new Map<string, EventBreakpoint>();
  for (const bp of list) {
    if (typeof bp !== 'object' || bp === null) throw new TypeError(`${where}: each breakpoint must be { type, condition? }`);
    const type = checkType(where, bp.type);
    const condition = checkCondition(where, type, bp.condition);
    byType.set(type, condition === undefined ? { type } : { type, condition });
  }
  if (byType.size > MAX_BREAK_ON_TYPES) throw new TypeError(`${where}: at most ${MAX_BREAK_ON_TYPES} event breakpoints (got ${byType.size})`);
  return [...byType.values()].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

export class EventBreakpointStore {
  private items: EventBreakpoint[];
  private readonly changed = new Emitter<readonly EventBreakpoint[]>();
  /** The list changed (fires with the new list). */
  readonly onDidChange = this.changed.event;

  constructor(private readonly memento: BreakpointMemento) {
    this.items = EventBreakpointStore.load(memento);
  }

  /** The stored list, tolerating entries an older or newer version wrote (they are dropped). */
  static load(memento: BreakpointMemento): EventBreakpoint[] {
    const raw = memento.get<unknown>(EVENT_BREAKPOINTS_KEY);
    if (!Array.isArray(raw)) return [];
    const good: EventBreakpoint[] = [];
    for (const entry of raw) {
      try {
        good.push(...normalize('load', [entry as EventBreakpoint]));
      } catch {
        // skipped
      }
    }
    try {
      return normalize('load', good);
    } catch {
      return good.slice(0, MAX_BREAK_ON_TYPES);
    }
  }

  /** Sorted by type. */
  get list(): readonly EventBreakpoint[] {
    return this.items;
  }

  /** The types, for `breakOn`. */
  get types(): string[] {
    return this.items.map((b) => b.type);
  }

  /** Breakpoints that have a condition. */
  get conditions(): { type: string; condition: string }[] {
    return this.items.flatMap((b) => (b.condition === undefined ? [] : [{ type: b.type, condition: b.condition }]));
  }

  get(type: string): EventBreakpoint | undefined {
    return this.items.find((b) => b.type === type);
  }

  has(type: string): boolean {
    return this.get(type) !== undefined;
  }

  /** Replaces the whole list. @throws TypeError on a bad type or condition (nothing changes then). */
  async replace(list: readonly EventBreakpoint[]): Promise<readonly EventBreakpoint[]> {
    if (!Array.isArray(list)) throw new TypeError('replace: expected an array of { type, condition? }');
    const next = normalize('replace', list);
    if (JSON.stringify(next) === JSON.stringify(this.items)) return this.items;
    this.items = next;
    await this.memento.update(EVENT_BREAKPOINTS_KEY, next);
    this.changed.fire(next);
    return next;
  }

  /** Adds (or updates the condition of) one breakpoint. */
  async set(type: string, condition?: string): Promise<readonly EventBreakpoint[]> {
    checkType('set', type);
    return this.replace([...this.items.filter((b) => b.type !== type), condition === undefined ? { type } : { type, condition }]);
  }

  async remove(type: string): Promise<readonly EventBreakpoint[]> {
    return this.replace(this.items.filter((b) => b.type !== type));
  }

  /** Adds it when absent (with `condition`), removes it when present. Resolves with whether it is set now. */
  async toggle(type: string, condition?: string): Promise<boolean> {
    checkType('toggle', type);
    if (this.has(type)) {
      await this.remove(type);
      return false;
    }
    await this.set(type, condition);
    return true;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
