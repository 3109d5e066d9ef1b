// How a store that keeps several stored entries under one key (LevelDB keeps a bundle's entries
// in a few large values) joins and splits them. A store records its framing when it is made and
// opens only with it.
import { LogError } from './errors.js';

export interface Framing {
  /** Recorded with the store. */
  readonly name: string;
  join(entries: Uint8Array[]): Uint8Array;
  /** The entries of a joined value; throws LogError `corrupt` when it is not one. */
  split(value: Uint8Array): Uint8Array[];
}

/** Each entry preceded by its length as an unsigned LEB128 varint: any bytes. The default. */
export const lengthPrefixed: Framing = {
  name: 'uvarint',
  join(entries) {
    let n = 0;
    for (const e of entries) n += varintSize(e.length) + e.length;
    const out = Buffer.allocUnsafe(n);
    let off = 0;
    for (const e of entries) {
      for (let v = e.length; ;) {
        const low = v % 128;
        v = Math.floor(v / 128);
        out[off++] = v === 0 ? low : low | 0x80;
        if (v === 0) break;
      }
      out.set(e, off);
      off += e.length;
    }
    return out;
  },
  split(value) {
    const out: Uint8Array[] = [];
    for (let off = 0; off < value.length;) {
      let len = 0;
      for (let scale = 1; ; scale *= 128) {
        if (off >= value.length || scale > 2 ** 35) throw new LogError('corrupt', 'a stored bundle has a malformed length');
        const b = value[off++]!;
        len += (b & 0x7f) * scale;
        if (b < 0x80) break;
      }
      if (off + len > value.length) throw new LogError('corrupt', 'a stored bundle ends inside an entry');
      out.push(value.subarray(off, off + len));
      off += len;
    }
    return out;
  },
};

function varintSize(n: number): number {
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

const NL = 0x0a;

/**
 * Entries that are each exactly `lines` lines of text with no newline at their end, joined by
 * newlines: the stored bytes are the entries' lines and nothing else. The sequencer refuses to
 * store an entry of another shape.
 */
export function textLines(lines: number): Framing {
  if (!Number.isSafeInteger(lines) || lines < 1) throw new LogError('bad_argument', 'textLines: expected a number of lines >= 1');
  return {
    name: `lines:${lines}`,
    join(entries) {
      for (const e of entries) if (countNewlines(e) !== lines - 1) throw new LogError('bad_argument', `an entry is not ${lines} lines`);
      const parts: Uint8Array[] = [];
      entries.forEach((e, i) => {
        if (i > 0) parts.push(NEWLINE);
        parts.push(e);
      });
      return Buffer.concat(parts);
    },
    split(value) {
      const out: Uint8Array[] = [];
      if (value.length === 0) return out;
      let start = 0;
      let seen = 0;
      for (let i = value.indexOf(NL); i >= 0; i = value.indexOf(NL, i + 1)) {
        if (++seen < lines) continue;
        out.push(value.subarray(start, i));
        start = i + 1;
        seen = 0;
      }
      if (seen !== lines - 1) throw new LogError('corrupt', `a stored bundle does not end with a whole entry of ${lines} lines`);
      out.push(value.subarray(start));
      return out;
    },
  };
}

const NEWLINE = Uint8Array.of(NL);

function countNewlines(b: Uint8Array): number {
  let n = 0;
  for (let i = b.indexOf(NL); i >= 0; i = b.indexOf(NL, i + 1)) n++;
  return n;
}

/** The framing a store recorded under `name`. */
export function framingNamed(name: string): Framing {
  if (name === lengthPrefixed.name) return lengthPrefixed;
  const m = /^lines:([1-9][0-9]*)$/.exec(name);
  if (m !== null) return textLines(Number(m[1]));
  throw new LogError('corrupt', `the store's entries are framed as ${JSON.stringify(name)}, which this code does not know`);
}
