// The directory's state, folded from the log by the engine's Replica (docs/engine.md, "Running a
// state machine"): each name's bindings in log order, the last one its current key. Nothing
// else is kept: a lookup reads the entry's bytes back from the log to prove them.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { StateMachine } from 'tlog-engine';
import { parseEntryBytes, type Entry } from './binding.js';

/** One binding of a name: the entry that set it and the key it set. */
export interface Binding {
  seq: number;
  publicKey: string;
}

/** Each name's bindings, oldest first. */
export type KeyDirState = Map<string, Binding[]>;

/** An entry as the state machine folds it: the entry and its place in the log. */
export interface Folded extends Entry {
  seq: number;
}

/** The current binding of `name` in `state`, if it has one. */
export function current(state: KeyDirState, name: string): Binding | undefined {
  return state.get(name)?.at(-1);
}

/**
 * The fold's identity: the SHA-256 of this file as it runs. A snapshot written by other code
 * (which may have folded the log otherwise) is set aside, and the log folded again.
 */
const CODE = createHash('sha256')
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .digest('hex');

const utf8 = new TextEncoder();

export const keydirMachine: StateMachine<KeyDirState, Folded> = {
  init: () => new Map(),
  decode: (stored) => ({ ...parseEntryBytes(stored.bytes), seq: stored.seq }),
  apply(state, e) {
    // The admission checked this; folding the log again checks it once more.
    const was = current(state, e.name);
    if (e.prev !== (was?.seq ?? null)) throw new Error(`entry ${e.seq}: prev ${e.prev} is not ${e.name}'s binding (${was?.seq ?? 'none'})`);
    const bindings = state.get(e.name) ?? [];
    bindings.push({ seq: e.seq, publicKey: e.publicKey });
    state.set(e.name, bindings);
    return was ?? null;
  },
  snapshot: {
    format: 'keydir-state/1',
    code: CODE,
    // JSON: [[name, [[seq, publicKey], ...]], ...]. A copy, made in one synchronous step.
    encode: (state) => [utf8.encode(JSON.stringify([...state].map(([name, bs]) => [name, bs.map((b) => [b.seq, b.publicKey])])))],
    decode(body, treeSize) {
      let rows: unknown;
      try {
        rows = JSON.parse(Buffer.from(body).toString('utf8'));
      } catch {
        return { problem: 'its body is not JSON' };
      }
      const state: KeyDirState = new Map();
      if (!Array.isArray(rows)) return { problem: 'its body is not a list of names' };
      for (const row of rows) {
        const [name, bs] = Array.isArray(row) ? (row as unknown[]) : [];
        if (typeof name !== 'string' || !Array.isArray(bs) || bs.length === 0) return { problem: 'a name is not [name, bindings]' };
        const bindings: Binding[] = [];
        for (const b of bs as unknown[]) {
          const [seq, publicKey] = Array.isArray(b) ? (b as unknown[]) : [];
          if (!Number.isSafeInteger(seq) || (seq as number) >= treeSize || typeof publicKey !== 'string')
            return { problem: `a binding of ${name} is not [seq, publicKey] within the tree` };
          bindings.push({ seq: seq as number, publicKey });
        }
        state.set(name, bindings);
      }
      return { state };
    },
  },
};
