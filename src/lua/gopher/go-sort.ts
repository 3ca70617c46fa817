// Go's sort.Sort (sort/zsortinterface.go pdqsort, as in Go 1.24 and later), which gopher-lua's table.sort calls
// (tablelib.go tableSort). Hand-written because no library sorts as Go does: the order it leaves equal
// elements in, and which pairs it hands a comparator, are the algorithm's own, and a script can see both.

/** sort.Interface over the positions 0..n-1. */
export interface GoSortable {
  less(i: number, j: number): boolean;
  swap(i: number, j: number): void;
}

/** sortedHint: what choosePivot saw of the range's order. */
const Hint = { Unknown: 0, Increasing: 1, Decreasing: 2 } as const;
type Hint = (typeof Hint)[keyof typeof Hint];

/** bits.Len(uint(n)): the number of bits needed to write n. */
function bitLength(n: number): number {
  return n <= 0 ? 0 : Math.floor(Math.log2(n)) + 1;
}

/** sort.Sort(data) for a collection of length n. */
export function goSort(data: GoSortable, n: number): void {
  if (n <= 1) return;
  pdqsort(data, 0, n, bitLength(n));
}

function insertionSort(data: GoSortable, a: number, b: number): void {
  for (let i = a + 1; i < b; i++) {
    for (let j = i; j > a && data.less(j, j - 1); j--) data.swap(j, j - 1);
  }
}

function siftDown(data: GoSortable, lo: number, hi: number, first: number): void {
  let root = lo;
  for (;;) {
    let child = 2 * root + 1;
    if (child >= hi) return;
    if (child + 1 < hi && data.less(first + child, first + child + 1)) child++;
    if (!data.less(first + root, first + child)) return;
    data.swap(first + root, first + child);
    root = child;
  }
}

function heapSort(data: GoSortable, a: number, b: number): void {
  const first = a;
  const hi = b - a;
  for (let i = Math.trunc((hi - 1) / 2); i >= 0; i--) siftDown(data, i, hi, first);
  for (let i = hi - 1; i >= 0; i--) {
    data.swap(first, first + i);
    siftDown(data, 0, i, first);
  }
}

function pdqsort(data: GoSortable, a: number, b: number, limit: number): void {
  const maxInsertion = 12;
  let wasBalanced = true;
  let wasPartitioned = true;
  for (;;) {
    const length = b - a;
    if (length <= maxInsertion) {
      insertionSort(data, a, b);
      return;
    }
    if (limit === 0) {
      heapSort(data, a, b);
      return;
    }
    if (!wasBalanced) {
      breakPatterns(data, a, b);
      limit--;
    }
    let [pivot, hint] = choosePivot(data, a, b);
    if (hint === Hint.Decreasing) {
      reverseRange(data, a, b);
      pivot = b - 1 - (pivot - a);
      hint = Hint.Increasing;
    }
    if (wasBalanced && wasPartitioned && hint === Hint.Increasing && partialInsertionSort(data, a, b)) return;
    if (a > 0 && !data.less(a - 1, pivot)) {
      a = partitionEqual(data, a, b, pivot);
      continue;
    }
    const [mid, alreadyPartitioned] = partition(data, a, b, pivot);
    wasPartitioned = alreadyPartitioned;
    const leftLen = mid - a;
    const rightLen = b - mid;
    const balanceThreshold = Math.trunc(length / 8);
    if (leftLen < rightLen) {
      wasBalanced = leftLen >= balanceThreshold;
      pdqsort(data, a, mid, limit);
      a = mid + 1;
    } else {
      wasBalanced = rightLen >= balanceThreshold;
      pdqsort(data, mid + 1, b, limit);
      b = mid;
    }
  }
}

function partition(data: GoSortable, a: number, b: number, pivot: number): [number, boolean] {
  data.swap(a, pivot);
  let i = a + 1;
  let j = b - 1;
  while (i <= j && data.less(i, a)) i++;
  while (i <= j && !data.less(j, a)) j--;
  if (i > j) {
    data.swap(j, a);
    return [j, true];
  }
  data.swap(i, j);
  i++;
  j--;
  for (;;) {
    while (i <= j && data.less(i, a)) i++;
    while (i <= j && !data.less(j, a)) j--;
    if (i > j) break;
    data.swap(i, j);
    i++;
    j--;
  }
  data.swap(j, a);
  return [j, false];
}

function partitionEqual(data: GoSortable, a: number, b: number, pivot: number): number {
  data.swap(a, pivot);
  let i = a + 1;
  let j = b - 1;
  for (;;) {
    while (i <= j && !data.less(a, i)) i++;
    while (i <= j && data.less(a, j)) j--;
    if (i > j) break;
    data.swap(i, j);
    i++;
    j--;
  }
  return i;
}

function partialInsertionSort(data: GoSortable, a: number, b: number): boolean {
  const maxSteps = 5;
  const shortestShifting = 50;
  let i = a + 1;
  for (let step = 0; step < maxSteps; step++) {
    while (i < b && !data.less(i, i - 1)) i++;
    if (i === b) return true;
    if (b - a < shortestShifting) return false;
    data.swap(i, i - 1);
    if (i - a >= 2) {
      for (let j = i - 1; j >= 1; j--) {
        if (!data.less(j, j - 1)) break;
        data.swap(j, j - 1);
      }
    }
    if (b - i >= 2) {
      for (let j = i + 1; j < b; j++) {
        if (!data.less(j, j - 1)) break;
        data.swap(j, j - 1);
      }
    }
  }
  return false;
}

const MASK64 = (1n << 64n) - 1n;

function breakPatterns(data: GoSortable, a: number, b: number): void {
  const length = b - a;
  if (length < 8) return;
  let random = BigInt(length); // xorshift seeded with the length: the same swaps every time
  const modulus = 2 ** bitLength(length);
  const middle = a + Math.trunc(length / 4) * 2;
  for (let idx = middle - 1; idx <= middle + 1; idx++) {
    // xorshift64's 13, 7, 17 since golang/go#70144 (Go 1.24; Karmada builds with Go 1.26); Go 1.19–1.23 used 13, 17, 5.
    random ^= (random << 13n) & MASK64;
    random ^= random >> 7n;
    random ^= (random << 17n) & MASK64;
    let other = Number(random & BigInt(modulus - 1));
    if (other >= length) other -= length;
    data.swap(idx, a + other);
  }
}

function choosePivot(data: GoSortable, a: number, b: number): [number, Hint] {
  const shortestNinther = 50;
  const maxSwaps = 4 * 3;
  const l = b - a;
  const swaps = { count: 0 };
  let i = a + Math.trunc(l / 4);
  let j = a + Math.trunc(l / 4) * 2;
  let k = a + Math.trunc(l / 4) * 3;
  if (l >= 8) {
    if (l >= shortestNinther) {
      i = median(data, i - 1, i, i + 1, swaps);
      j = median(data, j - 1, j, j + 1, swaps);
      k = median(data, k - 1, k, k + 1, swaps);
    }
    j = median(data, i, j, k, swaps);
  }
  if (swaps.count === 0) return [j, Hint.Increasing];
  if (swaps.count === maxSwaps) return [j, Hint.Decreasing];
  return [j, Hint.Unknown];
}

/** order2: the pair in order, counting a swap. */
function order2(data: GoSortable, a: number, b: number, swaps: { count: number }): [number, number] {
  if (data.less(b, a)) {
    swaps.count++;
    return [b, a];
  }
  return [a, b];
}

function median(data: GoSortable, a: number, b: number, c: number, swaps: { count: number }): number {
  [a, b] = order2(data, a, b, swaps);
  b = order2(data, b, c, swaps)[0]; // Go: b, c = order2(b, c); c is not read again
  b = order2(data, a, b, swaps)[1];
  return b;
}

function reverseRange(data: GoSortable, a: number, b: number): void {
  for (let i = a, j = b - 1; i < j; i++, j--) data.swap(i, j);
}
