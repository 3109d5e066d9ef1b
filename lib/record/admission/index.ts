// What admits an entry before its type's own check: who signed it (signer.ts), whether its signature verifies
// (entry-signature.ts), the replay window (replay-window.ts), and the refusals every check throws (refusal.ts).
// Outside lib/record/, import this index only (docs/entry-types.md#where-the-records-code-sits).
export { type LogKeys, signatureProblem, UNSIGNED_TYPES } from './entry-signature.js';
export { knownSignedHash, signedHash, tsWindow } from './replay-window.js';
export { authorizeSigner } from './signer.js';
