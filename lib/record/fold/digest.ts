// A canonical snapshot of the state, for comparing two states (a live one and one replayed
// from zero must be identical) and for a verifier to compare its replay with another's. Maps
// become arrays of [key, value] sorted by key; the scheduler's
// queues are left out (they are derived from the rest and say how far the scheduler has looked).
import { canonicalize } from '../../protocol/canonical-json.js';
import { sha256TextHex } from 'tlog-engine';
import type { State } from './state.js';
import { handleKey } from '../stores/agent-store.js';

function plain(value: unknown): unknown {
  if (value instanceof Map) {
    return [...value.entries()]
      .sort(([a], [b]) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0))
      .map(([k, v]) => [k, plain(v)]);
  }
  if (value instanceof Set) return [...value].map(plain).sort();
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, plain(v)]),
    );
  }
  return value;
}

/** The state as canonical JSON, without the scheduler's queues. */
export function stateJson(state: State): string {
  // The numbers' indexes and each agent's reviews are derived from the rest; the scores are the numbers themselves. What is
  // kept as columns (stores/paper-store.ts, stores/claim-store.ts, stores/review-store.ts, stores/reports.ts, stores/replay-index.ts,
  // numbers/score-store.ts) is read as the Maps it stands for.
  const { due: _due, numbers, agents, operators, papers, claims, reviews, reportsByKey, seen, reviewsByAgent: _byAgent, ...rest } = state;
  // The agents and operators (stores/agent-store.ts) as the Maps they replace: by handle, by handle in lower case, by key.
  const handles = [...agents.keys()];
  const keys = new Map<string, string>();
  for (const a of agents.values()) {
    keys.set(a.mainKey, a.handle);
    for (const k of a.checkKeys.keys()) keys.set(k, a.handle);
  }
  return canonicalize(
    plain({
      ...rest,
      agents: new Map(agents.entries()),
      handles: new Map(handles.map((h) => [handleKey(h), h])),
      keys,
      operators: new Map([...operators.values()].map((o) => [o.id, { ...o, agents: agents.ofOperator(o.id) }])),
      papers: new Map(papers.entries()),
      claims: new Map(claims.entries()),
      reviews: new Map(reviews.entries()),
      reportsByKey: reportsByKey.asMap(reviews),
      seen: seen.asMap(),
      scores: new Map(numbers.scores.entries()),
    }),
  );
}

/** SHA-256 of stateJson. */
export function stateDigest(state: State): string {
  return sha256TextHex(stateJson(state));
}
