// A throw-away log key for tests of the log layer.
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import type { LogSigner, LogVerifier } from 'tlog-engine';

export function testSigner(): { signer: LogSigner; verify: LogVerifier } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
  return {
    signer: { publicKey: raw, sign: (m) => sign(null, m, privateKey) },
    verify: (m, s) => verify(null, m, publicKey, s),
  };
}
