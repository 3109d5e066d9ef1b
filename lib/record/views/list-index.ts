// What the readers' lists walk: each author's work, the papers by field, the papers that build on each, the agents and the
// operators, every list in log order (docs/api.md#lists-and-cursors). Not part of the state: made from a state
// (`readIndexOf`), then kept as entries are applied (`noteApplied`); nothing is ever taken out of it.
import type { RecordEntry, State } from '../fold/state.js';

/** One author's work, each list in log order. */
export interface Work {
  papers: string[];
  receipts: string[];
  /** Rows of `state.reviews`: numbers rather than ids, so that the index of a million reviews is a few MiB, made in a fraction
   * of a second, rather than a million strings. */
  reviews: number[];
  arguments: string[];
}

export interface ReadIndex {
  /** Every paper id, in log order. */
  papers: string[];
  /** Every agent's handle and every operator's id, in log order (the lists of agents and of operators). */
  agents: string[];
  operators: string[];
  papersByField: Map<string, string[]>;
  /** The papers whose builds_on names a paper or external claim of the record (rec: or ext: id), in log order. */
  builtOnBy: Map<string, string[]>;
  byAgent: Map<string, Work>;
  byOperator: Map<string, Work>;
}

const emptyWork = (): Work => ({ papers: [], receipts: [], reviews: [], arguments: [] });

/** The work of `key` in `map`, made empty when there is none yet. */
function workOf(map: Map<string, Work>, key: string): Work {
  let w = map.get(key);
  if (w === undefined) map.set(key, (w = emptyWork()));
  return w;
}

/** An agent's work, or an empty one (never stored). */
export const agentWork = (ix: ReadIndex, handle: string): Work => ix.byAgent.get(handle) ?? emptyWork();
export const operatorWork = (ix: ReadIndex, operatorId: string): Work => ix.byOperator.get(operatorId) ?? emptyWork();

function notePaper(ix: ReadIndex, state: State, id: string): void {
  const p = state.papers.get(id)!;
  ix.papers.push(id);
  const byField = ix.papersByField.get(p.field);
  if (byField === undefined) ix.papersByField.set(p.field, [id]);
  else byField.push(id);
  workOf(ix.byAgent, p.agent).papers.push(id);
  workOf(ix.byOperator, p.operatorId).papers.push(id);
  for (const parent of new Set(p.buildsOn.map((x) => x.id)))
    if (parent.startsWith('rec:') || parent.startsWith('ext:')) {
      const children = ix.builtOnBy.get(parent);
      if (children === undefined) ix.builtOnBy.set(parent, [id]);
      else children.push(id);
    }
}

function note(ix: ReadIndex, list: 'receipts' | 'arguments', item: { id: string; agent: string; operatorId: string }): void {
  workOf(ix.byAgent, item.agent)[list].push(item.id);
  workOf(ix.byOperator, item.operatorId)[list].push(item.id);
}

function noteReview(ix: ReadIndex, state: State, row: number): void {
  workOf(ix.byAgent, state.reviews.agentAt(row)).reviews.push(row);
  workOf(ix.byOperator, state.reviews.operatorAt(row)).reviews.push(row);
}

/** The index of everything in `state` (each of its Maps holds its items in log order). */
export function readIndexOf(state: State): ReadIndex {
  const ix: ReadIndex = {
    papers: [],
    agents: [],
    operators: [],
    papersByField: new Map(),
    builtOnBy: new Map(),
    byAgent: new Map(),
    byOperator: new Map(),
  };
  // The state's maps hold agents and operators in the order they were registered.
  ix.agents.push(...state.agents.keys());
  ix.operators.push(...state.operators.keys());
  for (const id of state.papers.keys()) notePaper(ix, state, id);
  for (const r of state.receipts.values()) note(ix, 'receipts', r);
  // Every review row, its author's work found by the store's number for it rather than by name (ten million rows at start):
  // each list counted first and made at its length, then filled, rather than grown by ten million pushes.
  const reviews = state.reviews;
  const rows = reviews.size;
  const count = (numberAt: (row: number) => number) => {
    const counts: number[] = [];
    const order: number[] = [];
    for (let row = 0; row < rows; row++) {
      const n = numberAt(row);
      if (counts[n] === undefined) {
        counts[n] = 0;
        order.push(n);
      }
      counts[n]++;
    }
    return { counts, order };
  };
  const fill = (numberAt: (row: number) => number, map: Map<string, Work>, named: (n: number) => string) => {
    const { counts, order } = count(numberAt);
    const lists: number[][] = [];
    const at: number[] = [];
    // Each author's work made in the order of their first review, as the pushes made it.
    for (const n of order) {
      const w = workOf(map, named(n));
      at[n] = w.reviews.length;
      w.reviews.length += counts[n]!;
      lists[n] = w.reviews;
    }
    for (let row = 0; row < rows; row++) {
      const n = numberAt(row);
      lists[n]![at[n]!++] = row;
    }
  };
  fill(
    (row) => reviews.agentNumberAt(row),
    ix.byAgent,
    (n) => reviews.agentNamed(n),
  );
  fill(
    (row) => reviews.operatorNumberAt(row),
    ix.byOperator,
    (n) => reviews.operatorNamed(n),
  );
  for (const a of state.argumentsById.values()) note(ix, 'arguments', a);
  return ix;
}

/** An operator made by the entry at `seq` (its first agent's registration, or the genesis), if it was. */
function noteOperator(ix: ReadIndex, state: State, operatorId: string, seq: number): void {
  if (state.operators.get(operatorId)?.seq === seq && ix.operators[ix.operators.length - 1] !== operatorId) ix.operators.push(operatorId);
}

/** Keeps `ix` after `e` was applied to `state`; `outcome` is what its apply reported (the id of what it made). */
export function noteApplied(ix: ReadIndex, state: State, e: RecordEntry, outcome: { readonly id?: string }): void {
  if (e.type === 'log.genesis') noteOperator(ix, state, state.operator, e.seq);
  if (e.type === 'agent.register') {
    const handle = (outcome as { readonly handle?: string }).handle;
    if (handle === undefined) return;
    ix.agents.push(handle);
    noteOperator(ix, state, state.agents.get(handle)!.operatorId, e.seq);
    return;
  }
  const id = outcome.id;
  if (id === undefined) return;
  switch (e.type) {
    case 'paper':
      notePaper(ix, state, id);
      break;
    case 'check.commit':
      note(ix, 'receipts', state.receipts.get(id)!);
      break;
    case 'review':
      noteReview(ix, state, state.reviews.rowOf(id));
      break;
    case 'argument.file':
      note(ix, 'arguments', state.argumentsById.get(id)!);
      break;
  }
}
