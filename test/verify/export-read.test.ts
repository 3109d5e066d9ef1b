// An export read back (verify/source.ts, readExport): each entry is what JSON.parse makes of its line, whether it is held as
// its line (the served shape, whose payload is parsed again when read) or as the parsed object (any other line).
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXPORT_FORMAT, readExport, writeExport, type ServedEntry } from '../../verify/source.js';
import { tempDir } from '../helpers/tmp.js';

const H = (c: string) => c.repeat(64);
const head = (seq: number) =>
  `{"seq":${seq},"ts":"2026-01-01T00:00:0${seq}.000Z","type":"review","payloadHash":"${H('a')}","prevHash":"${H('b')}",` +
  `"entryHash":"${H(String(seq))}"`;

const LINES = [
  // The served shape: held as its line.
  `${head(0)},"payload":{"payload":{"claim":"rec:0123456789abcdef#C1","forecast":0.25},"signature":"x"}}`,
  // Escapes and text that looks like members inside the payload.
  `${head(1)},"payload":{"text":"a \\"quote\\", \\u00e9 and }{ \\n","n":[1,2.5,-3e-7,null,true]}}`,
  // A member after the payload: parsed as the line.
  `${head(2)},"payload":{"a":1},"withheld":["payload.a"]}`,
  // The payload twice: the last one counts, as JSON.parse reads it.
  `${head(3)},"payload":{"a":1},"payload":{"b":2}}`,
  // Members in another order.
  `{"ts":"2026-01-01T00:00:04.000Z","seq":4,"type":"review","payloadHash":"${H('a')}","prevHash":"${H('b')}","entryHash":"${H('4')}",` +
    `"payload":{"c":3}}`,
  // A payload withheld as an item out of view.
  `${head(5)},"payload":null,"withheld":["payload"],"subject":"${H('c')}"}`,
  // A payload of another type than an object.
  `${head(6)},"payload":"text"}`,
];

/** The entry's members as plain data, read through whatever holds it. */
const plain = (e: ServedEntry) => ({
  seq: e.seq,
  ts: e.ts,
  type: e.type,
  payloadHash: e.payloadHash,
  prevHash: e.prevHash,
  entryHash: e.entryHash,
  payload: e.payload,
  withheld: e.withheld,
  subject: e.subject,
});

t.test('each entry read is the parse of its line, read twice and written again', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'export.jsonl');
  const sth = { treeSize: LINES.length, rootHash: H('d'), timestamp: '2026-01-01T00:00:09.000Z', signature: 's' };
  writeFileSync(file, [JSON.stringify({ format: EXPORT_FORMAT, key: { key: 'k', origin: 'o' }, sth }), ...LINES, ''].join('\n'));
  const log = await readExport(file);
  t.equal(log.entries.length, LINES.length);
  t.strictSame(log.lines, LINES, 'the lines kept as read');
  LINES.forEach((line, i) => {
    const e = log.entries[i]!;
    const parsed = JSON.parse(line) as ServedEntry;
    t.strictSame(plain(e), plain(parsed), `line ${i}: its members`);
    t.strictSame(e.payload, parsed.payload, `line ${i}: its payload read again`);
    t.equal(JSON.stringify(e), JSON.stringify(parsed), `line ${i}: written as the parse is`);
  });
  // Written out and read back: the same entries.
  const again = join(dir, 'again.jsonl');
  await writeExport(again, log);
  t.strictSame(
    (await readExport(again)).entries.map(plain),
    LINES.map((l) => plain(JSON.parse(l))),
  );
});

t.test('a line that is not JSON is named when the export is read', async (t) => {
  const file = join(tempDir(t), 'export.jsonl');
  const sth = { treeSize: 2, rootHash: H('d'), timestamp: '2026-01-01T00:00:09.000Z', signature: 's' };
  // Of the served shape up to its payload, which does not end.
  writeFileSync(
    file,
    [JSON.stringify({ format: EXPORT_FORMAT, key: { key: 'k', origin: 'o' }, sth }), LINES[0], `${head(1)},"payload":{"a":}`].join('\n'),
  );
  await t.rejects(readExport(file), { message: `${file}:3: not JSON` });
});
