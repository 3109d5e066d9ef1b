// A witness policy (docs/engine.md, "Witnesses"): k of n witness keys, and a checkpoint held to
// it: signed by the log key, cosigned (cosignature/v1) by at least k of the keys, each key
// counted once, cosignatures by other keys or over other text not counted.
import t from 'tap';
import { generateKeyPairSync, sign } from 'node:crypto';
import {
  addCheckpoint,
  cosignatureLine,
  witnessKey,
  witnessPolicy,
  witnessed,
  type Log,
  type WitnessKey,
  type WitnessRecord,
} from '../src/index.js';
import { signNote } from '../src/checkpoint.js';
import { logKey, memoryLog } from './helpers/serve-log.js';
import { bytes } from './helpers/text.js';

const ORIGIN = 'test.example/policy';
const witness = (name: string): WitnessKey => witnessKey(name, generateKeyPairSync('ed25519').privateKey);
const now = Date.UTC(2026, 0, 1);

/** The log's checkpoint cosigned by each of `ws`, each through add-checkpoint from size 0. */
function cosign(log: Log, logKeyString: string, ws: WitnessKey[]): string {
  const note = log.checkpoint();
  const lines = ws.map((w) => {
    const a = addCheckpoint(`old 0\n\n${note}`, () => ({ log: { origin: ORIGIN, logKey: logKeyString }, last: null }), w, now);
    if (a.status !== 200) throw new Error(a.body);
    return a.body;
  });
  return note + lines.join('');
}

t.test('witnessPolicy parses the keys and the quorum, refusing what is not one', async (t) => {
  const [a, b] = [witness('a.test/w'), witness('b.test/w')];
  const p = witnessPolicy([a.vkey, b.vkey]);
  t.equal(p.quorum, 2, 'default: all of them');
  t.same(
    p.keys.map((k) => k.name),
    ['a.test/w', 'b.test/w'],
  );
  t.equal(witnessPolicy([a.vkey, b.vkey], 1).quorum, 1);
  for (const q of [0, 3, 1.5, NaN])
    t.throws(() => witnessPolicy([a.vkey, b.vkey], q), { code: 'bad_argument', message: /^quorum: expected a whole number from 1 to 2/ });
  t.throws(() => witnessPolicy([]), { code: 'bad_argument', message: /at least one witness key/ });
  t.throws(() => witnessPolicy(['nope']), { code: 'bad_argument', message: /^witness key nope: / });
  const wrongId = a.vkey.replace(/\+[0-9a-f]{8}\+/, '+00000000+');
  t.throws(() => witnessPolicy([wrongId]), { message: /key ID does not match/ });
});

t.test('witnessed: the quorum of valid cosignatures on a checkpoint signed by the log key', async (t) => {
  const { signer, key } = logKey();
  const log = await memoryLog(t, signer, ORIGIN);
  await log.append(bytes('one'));
  const [a, b, c] = [witness('a.test/w'), witness('b.test/w'), witness('c.test/w')];
  const stranger = witness('s.test/w');
  const policy = witnessPolicy([a.vkey, b.vkey, c.vkey], 2);
  const logged = { origin: ORIGIN, logKey: key };

  const two = witnessed(cosign(log, key, [a, c, stranger]), logged, policy);
  t.ok(two.ok, 'two of three, and a stranger ignored');
  if (two.ok) {
    t.same(
      two.cosignatures.map((x) => x.name),
      ['a.test/w', 'c.test/w'],
    );
    t.equal(two.cosignatures[0]!.timestamp, now / 1000, 'with their time');
    t.equal(two.checkpoint.treeSize, 1);
  }
  t.match(witnessed(cosign(log, key, [a, stranger]), logged, policy), {
    ok: false,
    problem: 'the checkpoint of size 1 carries 1 valid cosignature(s) of the 3 trusted witnesses, fewer than the quorum of 2',
  });

  // A key's cosignature twice counts once; a cosignature over another checkpoint counts not at all.
  const once = cosign(log, key, [a]);
  const line = once.slice(log.checkpoint().length);
  t.match(witnessed(once + line, logged, policy), { ok: false, problem: /carries 1 valid/ }, 'one key, once');
  const text = log.checkpoint().slice(0, log.checkpoint().indexOf('\n\n') + 1);
  const elsewhere = cosignatureLine(text.replace('\n1\n', '\n2\n'), b.key, now / 1000, b.sign);
  t.match(witnessed(once + elsewhere, logged, policy), { ok: false, problem: /carries 1 valid/ }, 'a line over other text');

  // Not the log key's, or not a note at all.
  const other = generateKeyPairSync('ed25519');
  const raw = new Uint8Array(other.publicKey.export({ format: 'der', type: 'spki' }).subarray(12));
  const forged = signNote(text, ORIGIN, raw, (m) => new Uint8Array(sign(null, m, other.privateKey)));
  t.match(witnessed(forged + line, logged, policy), { ok: false, problem: 'the checkpoint is not signed by the log key' });
  t.match(witnessed('garbage', logged, policy), { ok: false, problem: /^the checkpoint is not a signed checkpoint note/ });
});

t.test('addCheckpoint (pure): a record to keep only when it cosigns', async (t) => {
  const { signer, key } = logKey();
  const log = await memoryLog(t, signer, ORIGIN);
  await log.append(bytes('one'));
  const w = witness('w.test/w');
  let last: WitnessRecord | null = null;
  const logs = (origin: string) => (origin === ORIGIN ? { log: { origin, logKey: key }, last } : null);
  const a = addCheckpoint(`old 0\n\n${log.checkpoint()}`, logs, w, now);
  t.equal(a.status, 200);
  t.match(a.record, { origin: ORIGIN, treeSize: 1, checkpoint: log.checkpoint() + a.body });
  last = a.record!;
  const stale = addCheckpoint(`old 0\n\n${log.checkpoint()}`, logs, w, now);
  t.same([stale.status, stale.body, stale.record], [409, '1\n', undefined], 'nothing to keep');
  const zero = addCheckpoint(`old 0\n\n${log.checkpoint()}`, () => null, w, now);
  t.equal(zero.status, 404);
});
