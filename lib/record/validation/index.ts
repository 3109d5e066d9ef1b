// Each write's payload against its schema (payloads.ts). A room of its own so that what imports the registry alone (the
// verifier, the client) does not load ajv. Outside lib/record/, import this index only (docs/entry-types.md#where-the-records-code-sits).
export { payloadErrors, validatePayload } from './payloads.js';
