// What the readers' lists walk: each author's work, the papers by field, the papers that build on each, the agents and the
// operators, every list in log order (docs/api.md#lists-and-cursors). Not part of the state: made from a state
// (`readIndexOf`), then kept as entries are applied (`noteApplied`); nothing is ever taken out of it.
import type { RecordEntry, State } from '../fold/state.js';
import { appended, type Rows } from '../stores/columns.js';
import type { Parent } from '../stores/paper-store.js';
import type { Listed } from './paging.js';

/** One author's work, each list in log order. */
export interface Work {
  /** Rows of `state.papers`. */
  papers: Rows;
  receipts: string[];
  /** Rows of `state.reviews`: the state's own lists (`reviewsByAgent`, `numbers.index.reviewsByOperator`), kept as reviews land. */
  reviews: Rows;
  arguments: string[];
}

/** What the index holds of an author's work: the reviews are the state's. */
type IndexedWork = Omit<Work, 'reviews'>;

export interface ReadIndex {
  /** Every paper, its row of `state.papers` (all of them, in log order). */
  papers: EveryRow;
  /** Every agent's handle and every operator's id, in log order (the lists of agents and of operators). */
  agents: string[];
  operators: string[];
  /** The papers of each field, their rows of `state.papers`, in log order (a column as made at start, an array once grown). */
  papersByField: Map<string, Rows>;
  /** The papers whose builds_on names a paper or external claim of the record (rec: or ext: id), their rows, in log order. */
  builtOnBy: Map<string, number[]>;
  byAgent: Map<string, IndexedWork>;
  byOperator: Map<string, IndexedWork>;
}

/** Every row from 0 to `length` - 1, as a list of them would be: the rows of every paper, without a list of millions. */
class EveryRow implements Listed<number> {
  constructor(public length: number) {}
  at(i: number): number | undefined {
    return i >= 0 && i < this.length ? i : undefined;
  }
}

const emptyWork = (): IndexedWork => ({ papers: [], receipts: [], arguments: [] });
const NONE: Rows = [];

/** The work of `key` in `map`, made empty when there is none yet. */
function workOf(map: Map<string, IndexedWork>, key: string): IndexedWork {
  let w = map.get(key);
  if (w === undefined) map.set(key, (w = emptyWork()));
  return w;
}

/** An agent's work, or an empty one (never stored); its reviews are the state's list. */
export const agentWork = (state: State, ix: ReadIndex, handle: string): Work => ({
  ...(ix.byAgent.get(handle) ?? emptyWork()),
  reviews: state.reviewsByAgent.get(handle) ?? NONE,
});
export const operatorWork = (state: State, ix: ReadIndex, operatorId: string): Work => ({
  ...(ix.byOperator.get(operatorId) ?? emptyWork()),
  reviews: state.numbers.index.reviewsByOperator.get(operatorId) ?? NONE,
});

/** Notes that the paper at `row` builds on `parents` (those of the record, or external claims: rec: or ext: ids), each once. */
function noteParents(ix: ReadIndex, row: number, parents: readonly Parent[]): void {
  if (parents.length === 0) return;
  for (const parent of new Set(parents.map((x) => x.id)))
    if (parent.startsWith('rec:') || parent.startsWith('ext:')) {
      const children = ix.builtOnBy.get(parent);
      if (children === undefined) ix.builtOnBy.set(parent, [row]);
      else children.push(row);
    }
}

/** Notes the paper at `row` of state.papers (read from its columns: no paper object made). */
function notePaper(ix: ReadIndex, state: State, row: number): void {
  const papers = state.papers;
  ix.papers.length = row + 1;
  const field = papers.fieldAt(row);
  ix.papersByField.set(field, appended(ix.papersByField.get(field) ?? [], row));
  const byAgent = workOf(ix.byAgent, papers.agentAt(row));
  byAgent.papers = appended(byAgent.papers, row);
  const byOperator = workOf(ix.byOperator, papers.operatorAt(row));
  byOperator.papers = appended(byOperator.papers, row);
  noteParents(ix, row, papers.buildsOnAt(row));
}

function note(ix: ReadIndex, list: 'receipts' | 'arguments', item: { id: string; agent: string; operatorId: string }): void {
  workOf(ix.byAgent, item.agent)[list].push(item.id);
  workOf(ix.byOperator, item.operatorId)[list].push(item.id);
}

/** The index of everything in `state` (each of its Maps holds its items in log order). */
export function readIndexOf(state: State): ReadIndex {
  const papers = state.papers;
  const ix: ReadIndex = {
    papers: new EveryRow(papers.size),
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
  // The papers as notePaper would note each in turn, read by column: every Map below is empty until now, so that each
  // agent, operator and field comes in the order of its first paper, as it would.
  for (const [field, rows] of papers.rowsBy('field')) ix.papersByField.set(field, rows);
  for (const [agent, rows] of papers.rowsBy('agent')) workOf(ix.byAgent, agent).papers = rows;
  for (const [operator, rows] of papers.rowsBy('operator')) workOf(ix.byOperator, operator).papers = rows;
  for (const [row, parents] of papers.rowsBuildingOn()) noteParents(ix, row, parents);
  for (const r of state.receipts.values()) note(ix, 'receipts', r);
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
      notePaper(ix, state, state.papers.rowOf(id));
      break;
    case 'check.commit':
      note(ix, 'receipts', state.receipts.get(id)!);
      break;
    case 'argument.file':
      note(ix, 'arguments', state.argumentsById.get(id)!);
      break;
  }
}
