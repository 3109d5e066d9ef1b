// Sums of doubles as docs/credence.md#arithmetic defines them: the exact sum of the terms, rounded once to the nearest double
// (ties to even), whatever the order the terms came in or left in.

/**
 * An exact running sum: add(x), remove(x) = add(-x), value() the exact sum rounded once. Shewchuk's non-overlapping partials, as
 * Python's math.fsum, with its final round-half-even correction; terms are finite and far from overflow (below 10 in magnitude).
 */
export class ExactSum {
  private partials: number[] = [];

  add(x: number): void {
    const p = this.partials;
    let i = 0;
    for (let j = 0; j < p.length; j++) {
      let y = p[j]!;
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x];
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) p[i++] = lo;
      x = hi;
    }
    p.length = i;
    p.push(x);
  }

  remove(x: number): void {
    this.add(-x);
  }

  value(): number {
    const p = this.partials;
    let n = p.length;
    if (n === 0) return 0;
    let hi = p[--n]!;
    let lo = 0;
    while (n > 0) {
      const x = hi;
      const y = p[--n]!;
      hi = x + y;
      lo = y - (hi - x);
      if (lo !== 0) break;
    }
    // Half-way between two doubles: round towards the side the remaining partials lie on.
    if (n > 0 && ((lo < 0 && p[n - 1]! < 0) || (lo > 0 && p[n - 1]! > 0))) {
      const y = lo * 2;
      const x = hi + y;
      if (y === x - hi) hi = x;
    }
    return hi;
  }
}

/** The exact sum of `terms`, rounded once (docs/credence.md#arithmetic). */
export function exactSum(terms: Iterable<number>): number {
  const s = new ExactSum();
  for (const x of terms) s.add(x);
  return s.value();
}
