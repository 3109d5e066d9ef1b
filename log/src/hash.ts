// SHA-256 and strict hex, shared by the log and everything above it.
import { hash } from 'node:crypto';

// crypto.hash (Node >= 20.12) is a one-shot digest, about twice as fast as createHash for the
// short inputs of a Merkle tree. Its string outputs are much cheaper than its Buffer output, so
// the digest comes back as a binary (latin1) string and is copied into a pooled 32-byte Buffer.

/** Scratch space for concatenating short inputs without allocating. */
const scratch = Buffer.allocUnsafe(1024);
/** Views of scratch's first n bytes, made once each: a Merkle tree hashes inputs of a few lengths over and over. */
const prefixes: Buffer[] = [];
const scratchView = (n: number): Buffer => (prefixes[n] ??= scratch.subarray(0, n));

function digest(data: Uint8Array | string): Uint8Array {
  const out = Buffer.allocUnsafe(32);
  out.write(hash('sha256', data, 'binary'), 0, 'binary');
  return out;
}

/** SHA-256 of the concatenation of `parts`. */
export function sha256(...parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return digest(parts[0]!);
  let n = 0;
  for (const p of parts) n += p.length;
  if (n > scratch.length) return digest(Buffer.concat(parts));
  let off = 0;
  for (const p of parts) {
    scratch.set(p, off);
    off += p.length;
  }
  return digest(scratchView(n));
}

/** SHA-256 of one byte `tag` followed by `a` (and `b`): the shape of every hash of a Merkle tree (merkle.ts). */
export function sha256Tagged(tag: number, a: Uint8Array, b?: Uint8Array): Uint8Array {
  const n = 1 + a.length + (b?.length ?? 0);
  if (n > scratch.length) return digest(Buffer.concat(b === undefined ? [Uint8Array.of(tag), a] : [Uint8Array.of(tag), a, b]));
  scratch[0] = tag;
  scratch.set(a, 1);
  if (b !== undefined) scratch.set(b, 1 + a.length);
  return digest(scratchView(n));
}

/** SHA-256 of the UTF-8 bytes of `text`, as lowercase hex. */
export function sha256TextHex(text: string): string {
  return hash('sha256', text, 'hex');
}

/** SHA-256 of the UTF-8 bytes of `text`. */
export function sha256Text(text: string): Uint8Array {
  return digest(text);
}

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  return (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString('hex');
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
