// A FIFO with a fixed capacity: pushing onto a full queue drops the oldest item. Used for every
// list the webview keeps from a stream (markers, recently removed subscriptions), so memory stays
// bounded however long the session runs.

export class BoundedQueue<T> {
  private readonly items: (T | undefined)[];
  private head = 0;
  size = 0;
  /** Items dropped because the queue was full. */
  dropped = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new TypeError(`BoundedQueue: capacity must be a positive integer, got ${capacity}`);
    this.items = new Array<T | undefined>(capacity);
  }

  push(item: T): void {
    if (this.size === this.capacity) {
      this.items[this.head] = item;
      this.head = (this.head + 1) % this.capacity;
      this.dropped++;
      return;
    }
    this.items[(this.head + this.size) % this.capacity] = item;
    this.size++;
  }

  /** Item `k`, 0 = oldest. */
  at(k: number): T {
    if (k < 0 || k >= this.size) throw new RangeError(`BoundedQueue.at: ${k} is outside 0..${this.size - 1}`);
    return this.items[(this.head + k) % this.capacity] as T;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let k = 0; k < this.size; k++) yield this.items[(this.head + k) % this.capacity] as T;
  }

  clear(): void {
    this.items.fill(undefined);
    this.head = 0;
    this.size = 0;
    this.dropped = 0;
  }
}

/**
 * A Map that forgets its oldest entries beyond `capacity` (insertion order; re-setting a key does
 * not refresh it). For lookups that only need to cover recent data.
 */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  evicted = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new TypeError(`BoundedMap: capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): void {
    if (!this.map.has(key) && this.map.size >= this.capacity) {
      const oldest = this.map.keys().next();
      if (!oldest.done) {
        this.map.delete(oldest.value);
        this.evicted++;
      }
    }
    this.map.set(key, value);
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }

  entries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }

  clear(): void {
    this.map.clear();
  }
}
