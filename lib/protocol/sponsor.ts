// The signed bytes of a sponsorship, shared by the agent client that signs them and the record
// that checks them (docs/payloads.md, AgentRegistration.sponsor).

/** What a sponsor's main key signs for a new agent: the canonical JSON of this object. */
export function sponsorObject(handle: string, publicKey: string): { op: 'sponsor'; handle: string; publicKey: string } {
  return { op: 'sponsor', handle, publicKey };
}
