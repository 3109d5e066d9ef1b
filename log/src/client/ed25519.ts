// What a client checks signatures with, from the log key as its reads spell it (`key` of
// `<prefix>/key`): the engine's keys (keys.ts), and the note key of the log's checkpoints.
import type { NoteKey } from '../checkpoint.js';
import type { LogVerifier } from '../head.js';
import { ed25519Verify, logVerifier, parseLogKeyString } from '../keys.js';

export { ed25519Verify as verifyEd25519, parseLogKeyString as logKeyRaw };

/** Checks signed tree heads by the log key `key` (base64url DER SPKI); throws LogError('bad_argument') on a malformed key. */
export function logKeyVerifier(key: string): LogVerifier {
  return logVerifier(parseLogKeyString(key));
}

/** The note key of the log's checkpoints: named by the origin, the log key's raw bytes. */
export function logNoteKey(origin: string, key: string): NoteKey {
  return { name: origin, rawPublicKey: parseLogKeyString(key) };
}
