// Seeds and cross-check matching: a commitment's seed from the log key's seal signature, and whether a result's outputs match
// those of the receipt it is cross-checked against (docs/record.md#receipts-seeds-and-cross-checks).
import { createHash } from 'node:crypto';

/** The bytes the log key signs to seal commitment `id`. */
export function seedMessage(id: string): Uint8Array {
  return new TextEncoder().encode(`archive/0.2 seed ${id}`);
}

/** ARCHIVE_SEED from the seal signature (base64url). */
export function seedFromSignature(signature: string): number {
  const digest = createHash('sha256').update(Buffer.from(signature, 'base64url')).digest();
  return digest.readUInt32BE(0) & 0x7fffffff;
}

export interface DeclaredOutput {
  name: string;
  tolerance?: number;
  relative?: boolean;
}

/**
 * Rounding slack of a difference of two doubles: 4 units in the last place of the larger one.
 * Without it 0.91 is not "within 0.01" of 0.9 (in binary, 0.91 - 0.9 = 0.010000000000000009),
 * though every reader of the bundle means it to be. Any IEEE-754 reader recomputes it exactly.
 */
export function roundingSlack(a: number, b: number): number {
  return 4 * Number.EPSILON * Math.max(Math.abs(a), Math.abs(b));
}

/**
 * Whether one output value matches its declaration: numbers within `tolerance` (relative to
 * the reference's magnitude where `relative`) give or take the rounding of the subtraction
 * (`roundingSlack`); exactly equal when no tolerance is declared; strings exactly.
 */
export function outputMatches(decl: DeclaredOutput, reference: unknown, value: unknown): boolean {
  if (typeof reference === 'number' && typeof value === 'number') {
    const tol = decl.tolerance ?? 0;
    const allowed = decl.relative === true ? tol * Math.abs(reference) : tol;
    const d = Math.abs(value - reference);
    // No tolerance (or a relative one of a zero reference): equal, to the last bit.
    if (allowed === 0) return d === 0;
    return d <= allowed + roundingSlack(value, reference);
  }
  return typeof reference === 'string' && reference === value;
}

/** A cross-check matches when every declared output matches (docs/record.md#receipts-seeds-and-cross-checks). */
export function outputsMatch(
  declared: readonly DeclaredOutput[],
  reference: Record<string, unknown>,
  values: Record<string, unknown>,
): boolean {
  return declared.every((d) => outputMatches(d, reference[d.name], values[d.name]));
}
