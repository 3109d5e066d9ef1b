// The log key (log/src/keys.ts, docs/engine.md "Keys"): the signer and verifier against the
// signed-note vectors of golang.org/x/mod, the two spellings and their strict parsing, PEM, and
// key files (mode 0600, atomic, made only when asked, a file cut short replaced only then).
import t from 'tap';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ed25519Verify,
  generateLogKey,
  loadOrCreateKeyFile,
  logKeySpellings,
  logKeyString,
  logSigner,
  logVerifier,
  parseLogKey,
  parseLogKeyString,
  privateKeyFromPem,
  privateKeyToPem,
  rawPublicKey,
  readKeyFile,
  verifierKey,
  writeKeyFile,
} from '../src/index.js';
import { fixtureJson } from './helpers/fixtures.js';
import { tempDir } from './helpers/tmp.js';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const utf8 = (s: string) => Buffer.from(s, 'utf8');

t.test('the signer and verifier give the signatures of the signed-note vectors', async (t) => {
  const v = fixtureJson('merkle/signed-note.json').notes[0];
  // "PRIVATE+KEY+name+id+base64(0x01 || seed)"
  const seed = Buffer.from(v.testOnlySignerKey.split('+').slice(4).join('+'), 'base64').subarray(1);
  t.equal(seed.length, 32);
  const signer = logSigner(createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' }));
  const vkey: string = v.verifierKeys[0];
  const parsed = parseLogKey(vkey);
  t.same(parsed, { publicKey: new Uint8Array(signer.publicKey), name: 'PeterNeumann' }, 'the vkey names the signer and its public key');
  t.equal(verifierKey('PeterNeumann', signer.publicKey), vkey, 'and is spelled back the same');
  const expected = Buffer.from(v.expectedSignatureLineFromSigner.trimEnd().split(' ')[2], 'base64').subarray(4);
  const sig = signer.sign(utf8(v.text));
  t.same(Buffer.from(sig), expected, 'Ed25519 is deterministic: the very signature of the vector');
  for (const key of [signer.publicKey, vkey, logKeyString(signer.publicKey)]) {
    const verify = logVerifier(key);
    t.ok(verify(utf8(v.text), sig), `verifies with the key given as ${typeof key === 'string' ? key.slice(0, 12) : 'raw bytes'}`);
    t.notOk(verify(utf8(`${v.text}!`), sig), 'not another message');
    t.notOk(verify(utf8(v.text), sig.subarray(0, 63)), 'not a signature cut short');
  }
  t.ok(ed25519Verify(signer.publicKey, utf8(v.text), sig), 'the note verifier agrees');
  t.notOk(ed25519Verify(signer.publicKey.subarray(1), utf8(v.text), sig), 'and is false for a key of 31 bytes');
  const other = logVerifier(v.verifierKeys[1]);
  t.notOk(other(utf8(v.text), sig), "another key's verifier refuses it");
  for (const garbage of ['', 'not-a-key', `${vkey.slice(0, -2)}AA`, new Uint8Array(31)]) {
    t.notOk(logVerifier(garbage)(utf8(v.text), sig), `a key that does not parse verifies nothing (${String(garbage).slice(0, 20)})`);
  }
});

t.test('a key and its spellings: key (base64url DER SPKI) and vkey, parsed strictly', async (t) => {
  // A key whose key ID holds a letter, so that the ID in capitals is another spelling (2 % of keys have only digits).
  let key = generateLogKey();
  while (!/[a-f]/.test(logKeySpellings(rawPublicKey(key), 'example.org/log').vkey.split('+')[1]!)) key = generateLogKey();
  const raw = rawPublicKey(key);
  t.equal(raw.length, 32);
  const spelled = logKeySpellings(raw, 'example.org/log');
  const spki = Buffer.concat([SPKI_PREFIX, raw]);
  t.equal(spelled.key, spki.toString('base64url'), 'key: base64url of the DER SPKI');
  t.equal(spelled.key.length, 59);
  t.equal(spelled.key, logKeyString(raw));
  t.equal(spelled.vkey, verifierKey('example.org/log', raw));
  t.same(parseLogKey(spelled.key), { publicKey: raw, name: null });
  t.same(parseLogKey(spelled.vkey), { publicKey: raw, name: 'example.org/log' });
  t.same(parseLogKeyString(spelled.key), raw);
  t.same(logSigner(key).publicKey, raw, "the signer's public key");

  // The last of 59 characters carries 2 bits too many: a spelling with them set is not canonical.
  const last = spelled.key.at(-1)!;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const sibling = alphabet[alphabet.indexOf(last) ^ 1]!;
  const x25519 = Buffer.concat([Buffer.from('302a300506032b656e032100', 'hex'), raw]).toString('base64url');
  const refused: [string, string, RegExp][] = [
    ['padded', `${spelled.key}=`, /base64url \(no padding\)/],
    ['a character of standard base64', `/${spelled.key.slice(1)}`, /base64url \(no padding\)/],
    ['the raw 32 bytes', Buffer.from(raw).toString('base64url'), /44-byte DER SPKI/],
    ['one character short', spelled.key.slice(0, -1), /44-byte DER SPKI/],
    ['spare bits set', `${spelled.key.slice(0, -1)}${sibling}`, /not canonical/],
    ['an X25519 key', x25519, /not an Ed25519 SPKI/],
    ['empty', '', /44-byte DER SPKI/],
  ];
  for (const [what, s, detail] of refused) {
    t.throws(() => parseLogKey(s), { code: 'bad_argument', message: detail }, `key ${what} refused`);
  }

  // The base64 may hold '+' itself: the first two '+' split the fields.
  const [name, id] = spelled.vkey.split('+') as [string, string];
  const body = spelled.vkey.slice(name.length + id.length + 2);
  const type2 = Buffer.from(body, 'base64');
  type2[0] = 0x02;
  const wrongId = `${name}+${id === '00000000' ? '00000001' : '00000000'}+${body}`;
  const vrefused: [string, string, RegExp][] = [
    ['a wrong key ID', wrongId, /key ID does not match/],
    ['key type 0x02', `${name}+${id}+${type2.toString('base64')}`, /type 0x01/],
    ['a key ID in capitals', `${name}+${id.toUpperCase()}+${body}`, /8 lowercase hex/],
    ['a character of base64url', `${name}+${id}+${body.slice(0, -1)}-`, /not standard padded base64/],
    ['a character too many', `${name}+${id}+${body}A`, /not standard padded base64/],
    ['a name with a space', `a b+${id}+${body}`, /name/],
    ['another name', `other.example+${id}+${body}`, /key ID does not match/],
  ];
  for (const [what, s, detail] of vrefused) {
    t.throws(() => parseLogKey(s), { code: 'bad_argument', message: detail }, `vkey with ${what} refused`);
  }
  t.throws(() => logKeyString(raw.subarray(1)), { code: 'bad_argument' }, 'a raw key of 31 bytes has no spelling');
});

t.test('PEM: an Ed25519 PKCS#8 key round-trips; anything else is refused', async (t) => {
  const key = generateLogKey();
  const pem = privateKeyToPem(key);
  t.match(pem, /^-----BEGIN PRIVATE KEY-----\n/);
  t.same(rawPublicKey(privateKeyFromPem(pem)), rawPublicKey(key));
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  t.throws(() => privateKeyFromPem(ec), { code: 'bad_argument', message: /expected an Ed25519 key, got ec/ });
  t.throws(() => privateKeyFromPem(pem.slice(0, 40)), { code: 'bad_argument', message: /not a readable PEM private key/ });
  t.throws(() => logSigner(generateKeyPairSync('ed25519').publicKey), { code: 'bad_argument' }, 'a signer needs the private key');
});

t.test('key files: made with mode 0600, read back, never made when create is false', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'log.key');
  await t.rejects(loadOrCreateKeyFile(file, { create: false }), { code: 'corrupt', message: `key ${file} is missing` });
  t.notOk(existsSync(file), 'no key was made');
  await t.rejects(readKeyFile(file), { code: 'corrupt' });

  const made = await loadOrCreateKeyFile(file, { create: true });
  t.equal(statSync(file).mode & 0o777, 0o600, 'mode 0600');
  t.same(rawPublicKey(await readKeyFile(file)), rawPublicKey(made), 'the file holds the key made');
  const again = await loadOrCreateKeyFile(file, { create: true });
  t.same(rawPublicKey(again), rawPublicKey(made), 'a whole key is never replaced, even when create is true');
  t.same(rawPublicKey(await loadOrCreateKeyFile(file, { create: false })), rawPublicKey(made));

  // writeKeyFile: atomic, through a temporary file that a crash may leave behind.
  const other = join(dir, 'other.key');
  writeFileSync(`${other}.tmp`, '-----BEGIN PRIV');
  const key = generateLogKey();
  const umask = process.umask(0);
  try {
    await writeKeyFile(other, key);
  } finally {
    process.umask(umask);
  }
  t.equal(statSync(other).mode & 0o777, 0o600, 'mode 0600 whatever the umask');
  t.notOk(existsSync(`${other}.tmp`), 'the leftover temporary file is gone');
  t.same(rawPublicKey(await readKeyFile(other)), rawPublicKey(key));
});

t.test('a key file cut short is refused when create is false, and replaced only when create is true', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'log.key');
  await writeKeyFile(file, generateLogKey());
  const whole = readFileSync(file, 'utf8');
  for (const cut of ['', whole.slice(0, whole.length / 2)]) {
    writeFileSync(file, cut);
    await t.rejects(loadOrCreateKeyFile(file, { create: false }), {
      code: 'corrupt',
      message: new RegExp(`^cannot read key ${file}: not a readable PEM private key`),
    });
    t.equal(readFileSync(file, 'utf8'), cut, 'the file is left as it was');
    const replaced: string[] = [];
    const key = await loadOrCreateKeyFile(file, { create: true, onReplace: (why) => replaced.push(why) });
    t.equal(replaced.length, 1, 'the replacement is told');
    t.match(replaced[0], `cannot read key ${file}`);
    t.same(rawPublicKey(await readKeyFile(file)), rawPublicKey(key), 'a whole new key in its place');
    t.equal(statSync(file).mode & 0o777, 0o600);
  }
});
