// Entries as text, for tests: the engine appends and stores bytes.
import { toHex } from '../../src/hash.js';

/** The UTF-8 bytes of `s`. */
export const bytes = (s: string): Uint8Array => Buffer.from(s, 'utf8');

/** The text of stored bytes. */
export const str = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');

/** A time in ms as an ISO string. */
export const iso = (ms: number): string => new Date(ms).toISOString();

export { toHex };

/** A codec storing each entry as two lines, "<time> test.entry" and the data (as the record does), leaf as stored. */
export const twoLines = {
  stored: (data: Uint8Array, at: { time: number }) => bytes(`${iso(at.time)} test.entry\n${str(data)}`),
};

/**
 * The same with its rules: a leaf input only for an entry whose first line is "<time> test.entry",
 * and times that never go back. Importable by the audit's worker threads.
 */
export const timedCodec = {
  ...twoLines,
  leaf(stored: Uint8Array): Uint8Array {
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z test\.entry\n/.test(str(stored))) throw new Error('not "<time> test.entry"');
    return stored;
  },
  follows(stored: Uint8Array, before: Uint8Array | null): string | null {
    return before !== null && str(stored).slice(0, 24) < str(before).slice(0, 24) ? 'time is earlier than the entry before it' : null;
  },
  module: { url: import.meta.url, name: 'timedCodec' },
};
