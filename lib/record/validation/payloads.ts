// Each write's payload validated against its schema (types/registry.ts, from its descriptor), with the
// protocol's validator (lib/protocol/schemas/validate.ts: ajv, errors naming every field). Apart from
// the registry so that what only reads the registry (the verifier) does not load ajv.
import { compilePayload, refuseProblems, type PayloadCheck } from '../../protocol/schemas/validate.js';
import { isWriteType, PAYLOAD_SCHEMAS, type WriteType } from '../types/registry.js';

// Each schema compiled when first used.
const compiled = new Map<WriteType, PayloadCheck>();

/** Every problem with `payload` as a payload of `type`, in words; empty when it is valid. */
export function payloadErrors(type: WriteType, payload: unknown): string[] {
  if (!isWriteType(type)) return [`payload.type: unknown type ${JSON.stringify(type)}`];
  let check = compiled.get(type);
  if (check === undefined) compiled.set(type, (check = compilePayload(PAYLOAD_SCHEMAS[type])));
  return check(payload);
}

/** Throws ArchiveError bad_request naming every problem when `payload` is not a valid `type`. */
export function validatePayload(type: WriteType, payload: unknown): void {
  refuseProblems(payloadErrors(type, payload));
}
