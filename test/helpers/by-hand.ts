// Hashes and canonical JSON recomputed by hand, as an independent verifier would, never with
// the code under test: members sorted, JSON.stringify for the rest (the canonical form for the
// plain ASCII strings, integers and short decimals the tests use).
import { createHash } from 'node:crypto';

export function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** SHA-256 hex of a string's UTF-8 bytes, or of bytes. */
export const sha256Hex = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');
