// The database's note key: Ed25519 (node:crypto), kept in a file as Go's note package spells a
// signer key, "PRIVATE+KEY+<name>+<key ID>+<base64(0x01 || seed)>" (golang.org/x/mod/sumdb/note
// GenerateKey), so the same file works with Go's note.NewSigner. The name is the server's name:
// it is part of the key ID and of every signature line, so it is fixed when the key is made.
import { createPrivateKey, createPublicKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import { verifierKey, type LogSigner } from 'tlog-engine';

/** The note key of a database: its name, the verifier key clients are given, and a signer for the log. */
export interface NoteKey {
  name: string;
  vkey: string;
  signer: LogSigner;
}

/** DER PKCS#8 header of an Ed25519 private key (RFC 8410), then the 32-byte seed. */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const NAME = /^[^\s+]+$/u;

function keyOfSeed(name: string, seed: Buffer): NoteKey {
  const privateKey: KeyObject = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const publicKey = new Uint8Array(spki.subarray(spki.length - 32));
  return {
    name,
    vkey: verifierKey(name, publicKey),
    signer: { publicKey, sign: (msg) => new Uint8Array(sign(null, msg, privateKey)) },
  };
}

/** The signer key text of a note key made from `seed`: what the key file holds. */
function signerKeyText(key: NoteKey, seed: Buffer): string {
  const id = key.vkey.split('+')[1]!;
  return `PRIVATE+KEY+${key.name}+${id}+${Buffer.concat([Buffer.of(1), seed]).toString('base64')}\n`;
}

/** Parses a signer key file's text strictly; throws an Error saying what is wrong. */
export function parseSignerKey(text: string): NoteKey {
  const m = /^PRIVATE\+KEY\+([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]{44})\n?$/.exec(text);
  if (m === null) throw new Error('not a note signer key (PRIVATE+KEY+<name>+<key ID>+<base64 key>)');
  const [, name, id, b64] = m as unknown as [string, string, string, string];
  const body = Buffer.from(b64, 'base64');
  if (body.toString('base64') !== b64 || body.length !== 33 || body[0] !== 1)
    throw new Error('the key is not 0x01 (Ed25519) and a 32-byte seed');
  const key = keyOfSeed(name, body.subarray(1));
  if (key.vkey.split('+')[1] !== id) throw new Error(`the key ID ${id} does not match the key and the name ${name}`);
  return key;
}

/**
 * The note key in `file`: read if the file exists (and then `name`, if given, must be its
 * name), else made for `name` and written with mode 0600, never overwriting a file.
 */
export async function loadOrMakeKey(file: string, name: string | undefined, defaultName: string): Promise<{ key: NoteKey; made: boolean }> {
  let text: string | null = null;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (text !== null) {
    let key: NoteKey;
    try {
      key = parseSignerKey(text);
    } catch (err) {
      throw new Error(`${file}: ${(err as Error).message}`);
    }
    if (name !== undefined && name !== key.name)
      throw new Error(`${file} is the key of "${key.name}", not of "${name}": the name is fixed when the key is made`);
    return { key, made: false };
  }
  const n = name ?? defaultName;
  if (!NAME.test(n)) throw new Error(`name "${n}": a note key name has no spaces and no "+"`);
  const seed = randomBytes(32);
  const key = keyOfSeed(n, seed);
  const f = await open(file, 'wx', 0o600);
  try {
    await f.writeFile(signerKeyText(key, seed));
    await f.sync();
  } finally {
    await f.close();
  }
  return { key, made: true };
}
