// What a verification found: the first problem of each kind (by seq where it has one), how many
// entries were checked and how many were served with fields withheld.
import { describeTrust, type TrustedKey } from './log-key.js';

export type ProblemKind =
  /** seq order or prevHash links */
  | 'chain'
  /** an entryHash or payloadHash that does not recompute */
  | 'hash'
  /** a write's or a service event's signature */
  | 'signature'
  /** the source's log key, origin or genesis is not the key pinned with --key */
  | 'key'
  /** the signed tree head: its signature, its size or its root */
  | 'head'
  /** a head saved by an earlier run that the new one does not extend */
  | 'consistency'
  /** an entry the record's rules refuse (a seal's seed or draw among them) */
  | 'rules'
  /** a number or read the service serves that the log does not support */
  | 'numbers'
  /** the witness policy: the checkpoint lacks the quorum of cosignatures, or the entries are not the log it cosigned */
  | 'witness';

export interface Problem {
  kind: ProblemKind;
  seq: number | null;
  detail: string;
}

export interface Report {
  ok: boolean;
  origin: string;
  /** The log key the entries, heads and checkpoint were checked against, and whether --key pinned it. */
  logKey: TrustedKey;
  treeSize: number;
  rootHash: string;
  entries: number;
  /** Entries served with fields withheld: checked as far as their hashes allow. */
  withheld: number;
  /** Of those, results whose outputs are sealed until their receipt is cross-checked (or revealed). */
  sealed: number;
  /** Of those, entries of items out of view. */
  outOfView: number;
  /** Reads compared with the replayed state, by name. */
  compared: string[];
  /** Resumed from this verifier's replay saved at that many entries: only the entries after it were checked. */
  resumedFrom?: number;
  /** Under a witness policy: the cosigned checkpoint the entries give, and who cosigned it. */
  witnessed?: { treeSize: number; cosignedBy: string[] };
  problems: Problem[];
}

/** Collects problems, keeping the first of each kind (the lowest seq) and a count of each. */
export class Problems {
  private readonly first = new Map<ProblemKind, Problem>();
  readonly counts = new Map<ProblemKind, number>();

  add(kind: ProblemKind, seq: number | null, detail: string): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    const cur = this.first.get(kind);
    if (cur === undefined || (seq !== null && (cur.seq === null || seq < cur.seq))) this.first.set(kind, { kind, seq, detail });
  }

  has(kind: ProblemKind): boolean {
    return this.first.has(kind);
  }

  /**
   * Adds what `other` collected, as if its problems had been added here one by one after these: of each kind, the lowest seq
   * (these first on a tie) and the counts summed.
   */
  absorb(other: Problems): void {
    for (const [kind, p] of other.first) {
      this.add(kind, p.seq, p.detail);
      this.counts.set(kind, this.counts.get(kind)! - 1 + other.counts.get(kind)!);
    }
  }

  list(): Problem[] {
    return [...this.first.values()].sort((a, b) => (a.seq ?? Infinity) - (b.seq ?? Infinity));
  }
}

/** The report as lines for a terminal. */
export function formatReport(r: Report, counts: Map<ProblemKind, number>): string {
  const lines = [`log ${r.origin}: ${r.entries} entries, head ${r.treeSize} ${r.rootHash}`, `  checked against ${describeTrust(r.logKey)}`];
  // Sealed outputs are the ordinary case, not something hidden: say so (docs/record.md#what-served-entries-withhold).
  if (r.sealed > 0)
    lines.push(`  ${r.sealed} results' outputs sealed until cross-checked (their hashes checked; the outputs are served once revealed)`);
  if (r.outOfView > 0)
    lines.push(`  ${r.outOfView} entries of items out of view, their text withheld (checked as far as their hashes allow)`);
  const other = r.withheld - r.sealed - r.outOfView;
  if (other > 0)
    lines.push(`  ${other} entries with a private field withheld, such as a doorbell's address (checked as far as their hashes allow)`);
  if (r.resumedFrom !== undefined)
    lines.push(
      `  resumed from this verifier's replay saved at ${r.resumedFrom} entries: the ${r.entries - r.resumedFrom} entries after it ` +
        `checked and replayed`,
    );
  if (r.compared.length > 0) lines.push(`  served reads compared with the replay: ${r.compared.join(', ')}`);
  if (r.witnessed !== undefined)
    lines.push(`  the first ${r.witnessed.treeSize} entries are the checkpoint cosigned by ${r.witnessed.cosignedBy.join(', ')}`);
  if (r.ok) lines.push('OK: every entry, signature, head and number checked holds');
  for (const p of r.problems) {
    const n = counts.get(p.kind) ?? 1;
    lines.push(
      `PROBLEM ${p.kind}${p.seq === null ? '' : ` at seq ${p.seq}`}: ${p.detail}${n > 1 ? ` (and ${n - 1} more of this kind)` : ''}`,
    );
  }
  return lines.join('\n');
}
