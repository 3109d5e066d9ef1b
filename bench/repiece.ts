// node dist/bench/repiece.js <data>/db — rewrites, in place, the bundles of a LevelDB store written
// before commits were cut at blocks (docs/log-format.md: a piece of one commit's entries within one
// block of 16), so that a log a bench built before reads as one built now would. The entries, the
// tiles and the head are unchanged; only how the bundles' entries are split into pieces. Run it on a
// store no process has open. It prints how many bundles it rewrote and how many were already cut.
import { Level } from 'level';
import { lengthPrefixed, textLines, type Framing } from 'tlog-engine';

const BUNDLE = 0x62; // 'b'
const BUNDLE_SIZE = 256;
const BLOCK = 16;

/** The key of the piece of bundle `index` whose first entry is at `offset` in it (docs/log-format.md). */
function pieceKey(index: number, offset: number): Buffer {
  const k = Buffer.alloc(offset === 0 ? 9 : 10);
  k[0] = BUNDLE;
  k.writeUInt32BE(Math.floor(index / 2 ** 32), 1);
  k.writeUInt32BE(index % 2 ** 32, 5);
  if (offset !== 0) k[9] = offset;
  return k;
}

function framingOf(name: string | undefined): Framing {
  // A store without the key was made before framings, with two lines an entry.
  if (name === undefined || name === 'lines:2') return textLines(2);
  if (name === lengthPrefixed.name) return lengthPrefixed;
  throw new Error(`a framing this script does not know: ${name}`);
}

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: node dist/bench/repiece.js <data>/db');
const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer', createIfMissing: false });
await db.open();
const framing = framingOf((await db.get(Buffer.from('f')))?.toString('utf8'));

let index = -1;
let keys: Buffer[] = [];
let starts: number[] = [];
let records: Uint8Array[] = [];
let rewritten = 0;
let kept = 0;
async function flush(): Promise<void> {
  if (index < 0) return;
  // Already cut: every piece ends at or before the next block's edge.
  const cut = starts.every((s, i) => (i + 1 < starts.length ? starts[i + 1]! : records.length) - s <= BLOCK - (s % BLOCK));
  if (cut) {
    kept++;
    return;
  }
  const batch = db.batch();
  for (const k of keys) batch.del(k);
  for (let o = 0; o < records.length; o += BLOCK) batch.put(pieceKey(index, o), Buffer.from(framing.join(records.slice(o, o + BLOCK))));
  await batch.write();
  rewritten++;
}
for await (const [key, value] of db.iterator({ gte: Buffer.from([BUNDLE]), lt: Buffer.from([BUNDLE + 1]) })) {
  const i = key.readUInt32BE(1) * 2 ** 32 + key.readUInt32BE(5);
  if (i !== index) {
    await flush();
    index = i;
    keys = [];
    starts = [];
    records = [];
  }
  const offset = key.length === 10 ? key[9]! : 0;
  // Pieces are contiguous; one that does not start where the bundle's entries end is left as it is (no read uses it).
  if (offset !== records.length) continue;
  keys.push(Buffer.from(key));
  starts.push(offset);
  for (const r of framing.split(value)) records.push(Buffer.from(r));
  if (records.length > BUNDLE_SIZE) throw new Error(`bundle ${index} holds more than ${BUNDLE_SIZE} entries`);
}
await flush();
// The old pieces' bytes are dropped now rather than whenever LevelDB compacts them (classic-level's method, not in level's types).
await (db as unknown as { compactRange(start: Buffer, end: Buffer): Promise<void> }).compactRange(
  Buffer.from([BUNDLE]),
  Buffer.from([BUNDLE + 1]),
);
await db.close();
console.log(`${rewritten} bundles cut at blocks of ${BLOCK}; ${kept} were already`);
