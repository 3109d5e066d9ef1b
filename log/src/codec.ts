// Leaves are the application's bytes (README, "Leaves"). An application appends bytes; the log
// stores them, hashes the leaf input RFC 6962's way (SHA-256 of 0x00 || leaf), tiles, bundles
// and serves it. By default what is appended is what is stored and what is hashed. An
// application that wants the sequence number, the time or a hash chain inside its entries gives
// the log a codec: the log calls `stored` when it sequences an entry (in log order, before the
// entry is durable) and `leaf` whenever it needs the leaf input of a stored entry.

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
  /** The leaf input of the stored entry. Default: the stored bytes. Throws (any error) when they are malformed. */
  leaf?(stored: Uint8Array, at: Chained): Uint8Array;
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

/** The leaf hash of entry 0's predecessor: 32 zero bytes. */
export const NO_LEAF = new Uint8Array(32);

/** A codec with its defaults filled in. */
export interface Codec {
  stored(data: Uint8Array, at: Sequenced): Uint8Array;
  leaf(stored: Uint8Array, at: Chained): Uint8Array;
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
