// Strict base64url (RFC 4648 section 5, no padding), the spelling of keys and signatures
// (docs/protocol.md). Node's decoder skips characters outside the alphabet and ignores
// non-zero trailing bits, so many strings decode to the same bytes; we accept only the one
// that re-encodes identically (one spelling of each thing).
import { ArchiveError } from './errors.js';

const ALPHABET = /^[A-Za-z0-9_-]*$/;

/** base64url of `bytes`, without padding. */
export function encodeBase64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/**
 * Decodes canonical unpadded base64url, refusing (400, naming `what`) any other spelling;
 * `length`, when given, is the exact number of bytes expected.
 */
export function decodeBase64url(s: string, what: string, length?: number): Uint8Array {
  const fail = (reason: string): never => {
    throw new ArchiveError('bad_request', `${what}: ${reason}`);
  };
  if (typeof s !== 'string') fail('expected a base64url string');
  if (!ALPHABET.test(s)) fail('not base64url (only A-Z a-z 0-9 - _, no padding)');
  if (s.length % 4 === 1) fail('not base64url (impossible length)');
  const bytes = Buffer.from(s, 'base64url');
  if (bytes.toString('base64url') !== s) fail('not canonical base64url (non-zero trailing bits)');
  if (length !== undefined && bytes.length !== length) fail(`expected ${length} bytes, got ${bytes.length}`);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
