// The best `k` of `n` items by a comparison, without sorting all `n`: a bounded heap whose root is
// the worst item kept so far, so most items cost one comparison. Views use it to pick the most
// active of 100,000 event types in a scan.

/**
 * Indices (0..n-1) of the `k` items that `cmp` ranks first, in rank order. `cmp(a, b)` is negative
 * when `a` ranks before `b`; it must be a total order (break ties by index).
 */
export function topIndices(n: number, k: number, cmp: (a: number, b: number) => number): number[] {
  if (!Number.isInteger(n) || n < 0) throw new TypeError(`topIndices: n must be a non-negative integer, got ${n}`);
  const size = Math.max(0, Math.min(n, Math.floor(k)));
  const heap = new Uint32Array(size);
  let filled = 0;
  const swap = (a: number, b: number): void => {
    const tmp = heap[a];
    heap[a] = heap[b];
    heap[b] = tmp;
  };
  for (let i = 0; i < n && size > 0; i++) {
    if (filled < size) {
      let j = filled++;
      heap[j] = i;
      while (j > 0) {
        const p = (j - 1) >> 1;
        if (cmp(heap[j], heap[p]) <= 0) break;
        swap(j, p);
        j = p;
      }
    } else if (cmp(i, heap[0]) < 0) {
      heap[0] = i;
      for (let j = 0; ;) {
        const l = 2 * j + 1;
        let worst = j;
        if (l < filled && cmp(heap[l], heap[worst]) > 0) worst = l;
        if (l + 1 < filled && cmp(heap[l + 1], heap[worst]) > 0) worst = l + 1;
        if (worst === j) break;
        swap(j, worst);
        j = worst;
      }
    }
  }
  return Array.from(heap).sort(cmp);
}
