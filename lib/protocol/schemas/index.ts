// The schemas' machinery: the typed builders (shared.ts), the registration body, and validation
// (errors as ArchiveError bad_request naming every field). Each write type's payload schema is
// in its descriptor (lib/record/types/), and the table of them is lib/record/types/registry.ts.
export { REGISTRATION_SCHEMA, type Registration } from './registration.js';
export {
  MAX_DETAIL,
  compilePayload,
  joinDetail,
  refuseProblems,
  registrationErrors,
  validateRegistration,
  type PayloadCheck,
} from './validate.js';
export { FIELDS, FIELD_NAMES, NT_FORBIDDEN, SWITCHES, TS_PATTERN, isRealTs, ntViolation, type SwitchName } from './shared.js';
