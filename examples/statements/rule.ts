// The statement log's one rule (docs/engine.md, "The example"): an entry `statement` logs
// {statement, publicKey, signature}, where `statement` is any JSON value and `signature` is
// the Ed25519 signature, by `publicKey`, of the UTF-8 bytes of the statement's RFC 8785
// canonical JSON (keys and signatures as in docs/protocol.md). The same rule admits a write
// and checks an entry in the verifier.
import { canonicalBytes, canonicalize } from '../../lib/protocol/canonical-json.js';
import { parsePublicKey, verifySignature } from '../../lib/protocol/ed25519.js';
import { ArchiveError, badRequest } from '../../lib/protocol/errors.js';

/** The one entry type of this application. */
export const STATEMENT = 'statement';

export interface SignedStatement {
  statement: unknown;
  publicKey: string;
  signature: string;
}

const MEMBERS = ['publicKey', 'signature', 'statement'];

/**
 * Checks a write's body; gives the payload to log (its canonical JSON text). A malformed body
 * is 400 naming the member; a signature that does not verify is 401.
 */
export function admitStatement(body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('body: expected an object {statement, publicKey, signature}');
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!MEMBERS.includes(k)) throw badRequest(`${k}: unexpected member`);
  if (!('statement' in b) || b.statement === null) throw badRequest('statement: required (any JSON value but null)');
  if (typeof b.publicKey !== 'string') throw badRequest('publicKey: required, a string');
  parsePublicKey(b.publicKey, 'publicKey');
  if (typeof b.signature !== 'string') throw badRequest('signature: required, a string');
  const bytes = canonicalBytes(b.statement, 'statement');
  if (!verifySignature(b.publicKey, bytes, b.signature))
    throw new ArchiveError('unauthorized', 'signature: does not verify over the canonical JSON of statement with publicKey');
  return canonicalize({ publicKey: b.publicKey, signature: b.signature, statement: b.statement });
}

/** What is wrong with a logged entry under the rule, or null: the verifier's check. */
export function statementProblem(type: string, payload: unknown): string | null {
  if (type !== STATEMENT) return `type ${JSON.stringify(type)} is not ${STATEMENT}`;
  try {
    admitStatement(payload);
    return null;
  } catch (err) {
    return err instanceof ArchiveError ? err.detail : (err as Error).message;
  }
}
