// credence/0.3, the arithmetic (docs/credence.md): pure functions of numbers, no state. Each
// rule carries its name from the spec, so `grep` finds it; score.ts applies them to a claim.

export const CREDENCE_VERSION = 'credence/0.3';

const LN4 = Math.log(4);
const LN6 = Math.log(6);
export const LN3 = Math.log(3);

/** Tier weight t: verified 1, account 1/2, unverified 1/4. */
export const TIER_WEIGHT = { verified: 1, account: 0.5, unverified: 0.25 } as const;

export type ItemKind = 'replication' | 'rerun' | 'review';

/** Strength order of items: an operator's strongest kind counts (replication, rerun, review). */
export const KIND_RANK: Record<ItemKind, number> = { replication: 3, rerun: 2, review: 1 };

/**
 * Evidence step e (log-odds) and mass of one item: replication confirmed +ln 4 / failed -ln 6,
 * mass 1; rerun confirmed +(1/4) ln 4 / failed -(1/2) ln 6, mass 1/2; review forecast >= 0.5
 * +(1/4) ln 4, else -(1/4) ln 4, mass 1/4.
 */
export function evidenceStep(kind: ItemKind, favours: boolean): { e: number; mass: number } {
  switch (kind) {
    case 'replication':
      return { e: favours ? LN4 : -LN6, mass: 1 };
    case 'rerun':
      return { e: favours ? LN4 / 4 : -LN6 / 2, mass: 0.5 };
    case 'review':
      return { e: favours ? LN4 / 4 : -LN4 / 4, mass: 0.25 };
  }
}

/** Settled arguments that hold: refutes on counterexample or contradiction -ln 6, other refutes -ln 3, supports +(1/4) ln 4. */
export function argumentStep(stance: string, grounds: string): number {
  if (stance === 'refutes') return grounds === 'counterexample' || grounds === 'contradiction' ? -LN6 : -LN3;
  if (stance === 'supports') return LN4 / 4;
  return 0;
}

/** A qualifying argument that holds caps credence at 0.8. */
export const QUALIFIES_CAP = 0.8;

/**
 * Model-family factor of one item: for each earlier counted verified item pointing the same way,
 * 1 - 0.5 |S and T| / |S|. Computed in the canonical form of docs/credence.md#arithmetic:
 * c_k earlier items share exactly k of the |S| families, and the factor is the product over
 * k = 1..|S| of (1 - 0.5 k / |S|) ** c_k, multiplied in that order.
 */
export function familyFactor(own: readonly string[], earlier: readonly (readonly string[])[]): number {
  return familyFactorOf(
    own,
    earlier.map((t) => [t, 1] as const),
  );
}

/** familyFactor over earlier family sets given with how many earlier items have each. */
export function familyFactorOf(own: readonly string[], earlier: Iterable<readonly [readonly string[], number]>): number {
  const n = own.length;
  if (n === 0) return 1;
  const c = new Array<number>(n + 1).fill(0);
  for (const [t, count] of earlier) {
    let shared = 0;
    for (const s of own) if (t.includes(s)) shared++;
    c[shared] = c[shared]! + count;
  }
  let f = 1;
  for (let k = 1; k <= n; k++) if (c[k]! > 0) f *= (1 - (0.5 * k) / n) ** c[k]!;
  return f;
}

export const clamp = (x: number, lo: number, hi: number): number => (x < lo ? lo : x > hi ? hi : x);

/** Within [-ln 3, +ln 3]: the caps on reviews, on verified reviews and on unverified operators. */
export const capLn3 = (x: number): number => clamp(x, -LN3, LN3);

export const logit = (p: number): number => Math.log(p / (1 - p));
export const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/** Log-odds compression: |L| up to 8 unchanged; beyond, 8 + 4 tanh((|L| - 8) / 4), sign kept. */
export function compress(L: number): number {
  const m = Math.abs(L);
  if (m <= 8) return L;
  return Math.sign(L) * (8 + 4 * Math.tanh((m - 8) / 4));
}

/**
 * Calibration rho of an author operator: (4 * 0.5 + sum (1 - 2 (q_i - T_i)^2)) / (4 + n), in
 * [0, 1], over its resolved claims published earlier (q_i stated confidence, T_i 1 if
 * established, 0 if refuted). Given the sum and n, so it can be kept as a running total.
 */
export function calibration(sum: number, n: number): number {
  return clamp((2 + sum) / (4 + n), 0, 1);
}

/** One resolved claim's term of the calibration sum. */
export const calibrationTerm = (q: number, T: 0 | 1): number => 1 - 2 * (q - T) ** 2;

/** a = 0.5 + rho (q - 0.5) for a paper claim of stated confidence q; 0.5 for an external claim. */
export const anchor = (rho: number, q: number | null): number => (q === null ? 0.5 : 0.5 + rho * (q - 0.5));

/** prior = 0.1 + 0.9 a (product of foundation factors), within [1e-6, 1 - 1e-6]. */
export const priorOf = (a: number, foundations: number): number => clamp(0.1 + 0.9 * a * foundations, 1e-6, 1 - 1e-6);

/** The factor of an external foundation: min(1, credenceVerified / prior) (1 until verified evidence counts against it). */
export const externalFactor = (credenceVerified: number, prior: number): number => Math.min(1, credenceVerified / prior);

/** dispute = 4 s f / (s + f), 0 when s + f = 0. */
export const dispute = (s: number, f: number): number => (s + f === 0 ? 0 : (4 * s * f) / (s + f));

/** The credence that `established` needs: 1 - 0.1 e^(-use / 5). */
export const establishedAt = (use: number): number => 1 - 0.1 * Math.exp(-use / 5);

/** Value of checking: (use + 0.5) p (1 - p). */
export const valueOfChecking = (use: number, p: number): number => (use + 0.5) * p * (1 - p);

/** Numbers are served rounded to 4 decimals; they are computed unrounded. */
export const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/**
 * A probability as served: rounded to 4 decimals and kept within [0.0001, 0.9999], so that
 * rounding never shows a credence as certain (it is strictly inside (0, 1) unrounded).
 */
export const servedProbability = (p: number): number => Math.min(0.9999, Math.max(0.0001, round4(p)));
