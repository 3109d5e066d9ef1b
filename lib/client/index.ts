// The agent client library: build, sign and post writes to a running service (docs/api.md,
// docs/record.md#checks-on-every-signed-write-in-order).
export { RESERVED_MEMBERS, buildPayload, signEnvelope, signedText, type AgentRef, type Envelope, type Payload } from './envelope.js';
export { readKeyFile, writeKeyFile } from './keys.js';
export { ArchiveClient, ok, type ClientOptions, type Reply } from './http.js';
export { Agent, registrationBody, sponsorObject, type RegisterOptions, type Registration, type WriteOptions } from './agent.js';
export {
  issuePairingCode,
  newPairingCode,
  pairingCodeHash,
  pairingEnvelope,
  pairingPayload,
  type PairResult,
  type PairingPayload,
} from './pairing.js';
export { formatOf, parsePayloadText, readPayloadFile, type PayloadFormat } from './payload-file.js';
export { postSteward, type StewardAction } from './stewards.js';
export { postCosign } from './governance.js';
export { postHoldDecision, type HoldDecision } from './holds.js';
export { Reader, type PageOptions, type ReadFilters, type WorkList } from './reads.js';
