// A log's heads as a client checks them: the signed tree head by the log key, and the C2SP
// checkpoint against the head it should be (docs/log-format.md, "Checkpoints").
import { checkpointText, openNote } from '../checkpoint.js';
import { fromHex } from '../hash.js';
import { verifyHeadSignature, type SignedTreeHead } from '../head.js';
import { logKeyVerifier, logNoteKey, verifyEd25519 } from './ed25519.js';

/** Whether head `sth` is signed by the log key `logKey` (base64url DER SPKI); false for a malformed key. */
export function headSigned(sth: SignedTreeHead, logKey: string): boolean {
  try {
    return verifyHeadSignature(sth, logKeyVerifier(logKey));
  } catch {
    return false;
  }
}

/**
 * Why the checkpoint `note` does not hold for head `sth` of the log `origin` signed by `logKey`:
 * 'moved' when it is of another size (the log may have grown between two reads), a reason when
 * it is of the same size but not the same tree, or not signed by the log key; null when it holds.
 */
export function checkpointProblem(note: string, origin: string, logKey: string, sth: SignedTreeHead): string | null {
  let opened;
  try {
    opened = openNote(note, logNoteKey(origin, logKey), verifyEd25519);
  } catch (err) {
    return `not a signed note (${(err as Error).message})`;
  }
  if (!opened.text.startsWith(`${origin}\n${sth.treeSize}\n`)) return 'moved';
  let expected;
  try {
    expected = checkpointText(origin, sth.treeSize, fromHex(sth.rootHash, 32));
  } catch {
    return "the head's root is not 32 bytes of hex";
  }
  if (opened.text !== expected) return "its root is not the head's";
  return opened.verified ? null : 'not signed by the log key';
}
