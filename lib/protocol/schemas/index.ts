// The write schemas: one JSON Schema per payload type and the registration body, and their
// validation (errors as ArchiveError bad_request naming every field).
export { PAYLOAD_SCHEMAS, REGISTRATION_SCHEMA, WRITE_TYPES, isWriteType, type WriteType } from './payloads.js';
export { MAX_DETAIL, joinDetail, payloadErrors, registrationErrors, validatePayload, validateRegistration } from './validate.js';
export { NT_FORBIDDEN, TS_PATTERN, isRealTs, ntViolation } from './shared.js';
