// lib/protocol/log-entry.ts: the record's stored entries, "<ts> <type>", a newline and the payload
// (docs/log-format.md, "Entries"), and the leaf input the codec makes of them.
import t from 'tap';
import { entryData, leafInput, parseStored, recordCodec } from '../../lib/protocol/log-entry.js';
import { sha256TextHex } from 'tlog-engine';

const TS = '2026-11-22T10:00:00.123Z';
const prev = new Uint8Array(32).fill(7);
const stored = (head: string, payload = '{"a":1}') => Buffer.from(`${head}\n${payload}`, 'latin1');

t.test('a stored entry is read back and becomes its leaf input', async (t) => {
  const s = recordCodec.stored!(entryData('review', '{"a":1}'), { seq: 5, time: Date.parse(TS) });
  t.equal(Buffer.from(s).toString('utf8'), `${TS} review\n{"a":1}`);
  t.same(parseStored(s), { ts: TS, type: 'review', payload: '{"a":1}' });
  const leaf = Buffer.from(recordCodec.leaf!(s, { seq: 5, prev })).toString('latin1');
  t.equal(leaf, leafInput({ payloadHash: sha256TextHex('{"a":1}'), prevHash: '07'.repeat(32), seq: 5, ts: TS, type: 'review' }));
  t.same(parseStored(stored(`${TS} challenge.propose`, '')), { ts: TS, type: 'challenge.propose', payload: '' }, 'an empty payload');
});

t.test('anything else is refused', async (t) => {
  const bad = {
    'a letter in the ts': `2026-11-22T10:0a:00.123Z review`,
    'no milliseconds': `2026-11-22T10:00:00Z review`,
    'a T missing': `2026-11-22 10:00:00.123Z review`,
    'two spaces': `${TS}  review`,
    'an upper-case type': `${TS} Review`,
    'a type ending in a dot': `${TS} review.`,
    'no type': `${TS} `,
    'a type of 129 characters': `${TS} ${'a'.repeat(129)}`,
  };
  for (const [what, head] of Object.entries(bad)) {
    t.throws(() => parseStored(stored(head)), /not "<ts> <type>"/, what);
    t.throws(() => recordCodec.leaf!(stored(head), { seq: 0, prev }), /not "<ts> <type>"/, `${what} (leaf)`);
  }
  t.throws(() => parseStored(Buffer.from(`${TS} review`, 'latin1')), /not "<ts> <type>"/, 'no newline');
  t.ok(parseStored(stored(`${TS} ${'a'.repeat(128)}`)), 'a type of 128 characters is one');
});

t.test('the data entryData makes, and only it, is what the codec stores', async (t) => {
  const data = entryData('claim.amend', '{"é":1}');
  const s = recordCodec.stored!(data, { seq: 0, time: Date.parse(TS) });
  t.equal(Buffer.from(s).toString('utf8'), `${TS} claim.amend\n{"é":1}`, 'the ts written into its room, the UTF-8 payload after');
  t.throws(() => recordCodec.stored!(Buffer.from('review\n{}'), { seq: 0, time: 0 }), /what entryData makes/, 'bytes without the room');
  t.throws(() => entryData('Review', '{}'), /not a dotted lower-case name/);
  t.throws(() => entryData('review', '{"a":\n1}'), /no raw newline/);
});

t.test('entry times never go backwards: an entry may not follow one of a later ts', async (t) => {
  const at = (ts: string) => stored(`${ts} review`);
  t.equal(recordCodec.follows!(at(TS), null), null, 'the first entry');
  t.equal(recordCodec.follows!(at(TS), at(TS)), null, 'the same ts');
  t.equal(recordCodec.follows!(at('2026-11-22T10:00:00.124Z'), at(TS)), null, 'a later ts');
  t.equal(recordCodec.follows!(at('2026-11-22T09:59:59.999Z'), at(TS)), 'ts is earlier than the entry before it', 'an earlier ts');
  t.equal(recordCodec.follows!(at('2025-12-31T23:59:59.999Z'), at(TS)), 'ts is earlier than the entry before it', 'an earlier year');
});
