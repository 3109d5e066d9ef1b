// The log key an auditor trusts (docs/cli.md, "archive verify"): pinned with --key, spelled as
// GET /v1/log/key spells it (the key, base64url of its DER SPKI, or the vkey, the C2SP note
// verifier key `origin+keyid+base64`), or else taken from the source on first use. A source
// whose published key, genesis or head is another key's is refused with a line naming both.
import { logKeyString, parseLogKey, parseLogKeyString, verifierKey } from 'tlog-engine';

/** A key given with --key: the key's spelling, and the origin when a vkey named it. */
export interface PinnedKey {
  key: string;
  origin: string | null;
}

/** The key a report was checked against, and whether it was pinned or taken from the source. */
export interface TrustedKey {
  key: string;
  vkey: string;
  pinned: boolean;
}

/** Parses --key with the engine's parseLogKey: a vkey (it holds '+') or a key; throws naming --key when it is neither. */
export function parsePinnedKey(s: string): PinnedKey {
  let parsed;
  try {
    parsed = parseLogKey(s);
  } catch (err) {
    const what = s.includes('+') ? 'not a verifier key' : 'not a log key';
    throw new Error(`--key: ${what} (${(err as Error).message}; give the key or the vkey, as GET /v1/log/key spells them)`);
  }
  return { key: logKeyString(parsed.publicKey), origin: parsed.name };
}

/** The vkey of `key` (base64url DER SPKI) under `origin`: the note verifier key of the log's checkpoints. */
export function vkeyOf(origin: string, key: string): string {
  return verifierKey(origin, parseLogKeyString(key));
}

/** How a report names the key it checked against. */
export function describeTrust(t: TrustedKey): string {
  return (
    `log key ${t.key} (vkey ${t.vkey}), ` +
    `${t.pinned ? 'pinned with --key' : 'taken from the source on first use (give --key to pin it)'}`
  );
}

/**
 * Why a source's published key and origin are not the pinned ones, or null when they are (or
 * nothing is pinned). `where` names the source ("the service", "the mirror", "the export").
 */
export function pinProblem(pinned: PinnedKey | undefined, published: { key: string; origin: string }, where: string): string | null {
  if (pinned === undefined) return null;
  if (published.key !== pinned.key) return `${where} publishes log key ${published.key}; the pinned key (--key) is ${pinned.key}`;
  if (pinned.origin !== null && published.origin !== pinned.origin)
    return `${where} publishes origin ${published.origin}; the pinned vkey (--key) names ${pinned.origin}`;
  return null;
}
