// Leaves are the application's bytes; a codec, when given, says what is stored for what is
// appended and what each stored entry's leaf input is (docs/engine.md#leaves-are-the-applications-bytes).
import { sha256Text } from './hash.js';
import { hashLeaf } from './merkle.js';

/** Where the log sequenced an entry: its index and its time (milliseconds since the epoch, never earlier than the entry before). */
export interface Sequenced {
  seq: number;
  time: number;
}

/** A stored entry's place: its index and the leaf hash of the entry before it (32 zero bytes for entry 0). */
export interface Chained {
  seq: number;
  prev: Uint8Array;
}

export interface LeafCodec {
  /** The bytes to store for an entry appended as `data`. Default: `data`. */
  stored?(data: Uint8Array, at: Sequenced): Uint8Array;
  /**
   * The leaf input of the stored entry: bytes, or a string standing for its UTF-8 bytes. Default:
   * the stored bytes. Throws (any error) when they are malformed.
   */
  leaf?(stored: Uint8Array, at: Chained): Leaf;
  /**
   * An application's rule between consecutive stored entries, checked by the audit: why `stored`
   * may not follow `before` (null for entry 0), or null when it may.
   */
  follows?(stored: Uint8Array, before: Uint8Array | null): string | null;
  /**
   * Where a worker thread can import this codec (a module URL and the name it exports), so the
   * audit of a large log checks pages on worker threads; without it the audit runs on one thread.
   */
  module?: { url: string; name: string };
}

/** A leaf input: bytes, or a string standing for its UTF-8 bytes. */
export type Leaf = Uint8Array | string;

/** RFC 6962's leaf hash of a leaf input, SHA-256(0x00 || leaf). */
export function leafHash(leaf: Leaf): Uint8Array {
  return typeof leaf === 'string' ? sha256Text(`\u0000${leaf}`) : hashLeaf(leaf);
}

/** A leaf input as bytes. */
export function leafBytes(leaf: Leaf): Uint8Array {
  return typeof leaf === 'string' ? Buffer.from(leaf, 'utf8') : leaf;
}

/** The leaf hash of entry 0's predecessor: 32 zero bytes. */
export const NO_LEAF = new Uint8Array(32);

/** A codec with its defaults filled in. */
export interface Codec {
  stored(data: Uint8Array, at: Sequenced): Uint8Array;
  leaf(stored: Uint8Array, at: Chained): Leaf;
  follows(stored: Uint8Array, before: Uint8Array | null): string | null;
  module: { url: string; name: string } | undefined;
}

/** The codec `c` with the identity where it gives no function. */
export function fullCodec(c: LeafCodec = {}): Codec {
  return {
    stored: c.stored?.bind(c) ?? ((data) => data),
    leaf: c.leaf?.bind(c) ?? ((stored) => stored),
    follows: c.follows?.bind(c) ?? (() => null),
    module: c.module,
  };
}
