// SHA-256 and strict hex, shared by the log and everything above it.
import { createHash } from 'node:crypto';

/** SHA-256 of the concatenation of `parts`. */
export function sha256(...parts: Uint8Array[]): Uint8Array {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
}

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

const HEX = /^(?:[0-9a-f]{2})*$/;

/** Decodes lowercase hex, refusing any other spelling; `length` is the expected byte count. */
export function fromHex(hex: string, length?: number): Uint8Array {
  if (typeof hex !== 'string' || !HEX.test(hex)) throw new TypeError('expected lowercase hex');
  if (length !== undefined && hex.length !== length * 2) {
    throw new TypeError(`expected ${length} bytes of hex, got ${hex.length / 2}`);
  }
  return Buffer.from(hex, 'hex');
}

/** Byte-wise equality. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}
