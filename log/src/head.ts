// Signed tree heads (docs/log-format.md): Ed25519 by the log key over the canonical JSON of
// {rootHash, timestamp, treeSize}. The signer and verifier are injected, so the log holds no key.

/** What signs for the log: the raw 32-byte Ed25519 public key and a signing function. */
export interface LogSigner {
  publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

/** Checks a raw Ed25519 signature by the log key. */
export type LogVerifier = (message: Uint8Array, signature: Uint8Array) => boolean;

export interface SignedTreeHead {
  treeSize: number;
  rootHash: string;
  timestamp: string;
  signature: string;
}

/** The bytes an STH signature covers; members in RFC 8785 order, values need no escaping. */
export function headMessage(h: { rootHash: string; timestamp: string; treeSize: number }): Uint8Array {
  return new TextEncoder().encode(`{"rootHash":"${h.rootHash}","timestamp":"${h.timestamp}","treeSize":${h.treeSize}}`);
}

const B64URL = /^[A-Za-z0-9_-]{86}$/;

/** True when `head.signature` is the log key's signature over the head (strict base64url). */
export function verifyHeadSignature(head: SignedTreeHead, verify: LogVerifier): boolean {
  if (typeof head.signature !== 'string' || !B64URL.test(head.signature)) return false;
  const sig = Buffer.from(head.signature, 'base64url');
  if (sig.length !== 64 || sig.toString('base64url') !== head.signature) return false;
  return verify(headMessage(head), sig);
}
