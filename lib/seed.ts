// Seeds and cross-check matching (choices.md section 4).
//
// The seed of a commitment: the log key signs the UTF-8 bytes `archive/0.2 seed <commitment id>`
// and the seal entry logs that signature; ARCHIVE_SEED is the first 4 bytes of SHA-256 of the
// signature (the 64 raw bytes), read big-endian, AND 0x7fffffff, in decimal. Ed25519 is
// deterministic, so the seal is fixed by the commitment, yet nobody without the log key can
// know it before the commitment is logged.
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
 * Whether one output value matches its declaration: numbers within `tolerance` (relative to
 * the reference's magnitude where `relative`; 0 when none is declared), strings exactly.
 */
export function outputMatches(decl: DeclaredOutput, reference: unknown, value: unknown): boolean {
  if (typeof reference === 'number' && typeof value === 'number') {
    const tol = decl.tolerance ?? 0;
    const allowed = decl.relative === true ? tol * Math.abs(reference) : tol;
    return Math.abs(value - reference) <= allowed;
  }
  return typeof reference === 'string' && reference === value;
}

/** A cross-check matches when every declared output matches (choices.md section 4). */
export function outputsMatch(declared: readonly DeclaredOutput[], reference: Record<string, unknown>, values: Record<string, unknown>): boolean {
  return declared.every((d) => outputMatches(d, reference[d.name], values[d.name]));
}
