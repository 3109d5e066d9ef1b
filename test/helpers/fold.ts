// The record's state machine driven by hand, for tests of the numbers: real-shaped entries
// checked and applied as the live record does (apply does not verify signatures, so these carry
// none). Service events (seals) are applied as the service would log them.
import { applyEntry, check, emptyState, type RecordEntry, type State } from '../../lib/record/fold/index.js';
import { drawCrossCheck } from '../../lib/record/types/index.js';
import type { Score } from '../../lib/record/numbers/index.js';
import { PROTOCOL } from '../../lib/protocol/service-event.js';
import { isArchiveError } from '../../lib/protocol/errors.js';
import { toArchiveError } from '../../api/error-middleware.js';
import { sha256TextHex } from 'tlog-engine';

export interface ReceiptOptions {
  kind?: 'replication' | 'rerun';
  models?: string[];
  /** The seed the seal gives (it picks the cross-check among the candidates). */
  seed?: number;
  /** What the cross-check's re-run reports, when one is assigned: matching outputs, or not. */
  crossMatch?: boolean;
  /** The output this receipt reports. */
  acc?: number;
  runtimeMinutes?: number;
}

/** A state whose operators in `verified` are verified from the start (round 0), as by genesis. */
export function seededState(verified: readonly string[]): State {
  const state = emptyState();
  state.operator = verified[0] ?? '';
  for (const op of verified) {
    state.verified.set(op, { round: 0, seq: 0 });
    state.operators.add(op, 0);
  }
  return state;
}

export class Fold {
  state: State;
  now = Date.parse('2030-01-01T00:00:00.000Z');
  log: RecordEntry<object>[] = [];

  constructor(readonly verified: readonly string[] = ['op_archive']) {
    this.state = seededState(verified);
  }

  private entry(type: string, logged: object): RecordEntry<object> {
    return { seq: this.state.size, ts: new Date(this.now).toISOString(), type, logged };
  }

  /** Checks and applies a write; throws when the record would refuse it. */
  admit(type: string, logged: object): any {
    const e = this.entry(type, logged);
    const verdict = check(this.state, e);
    if (verdict !== undefined) throw new Error(`already so: ${JSON.stringify(verdict)}`);
    return this.apply(e);
  }

  /** The typed error `check` throws for this write (nothing applied), or null when it would pass. */
  refusal(type: string, logged: object): { error: string; detail: string } | null {
    try {
      check(this.state, this.entry(type, logged));
    } catch (err) {
      // As the API answers it: the record refuses with a domain code, the API maps it to a status.
      if (isArchiveError(err)) {
        const answered = toArchiveError(err);
        return { error: answered.code, detail: answered.detail };
      }
      throw err;
    }
    return null;
  }

  /** Applies a service event as the service logs it. */
  event(type: string, members: Record<string, unknown>): any {
    return this.apply(
      this.entry(type, { event: { protocol: PROTOCOL, type, ts: new Date(this.now).toISOString(), ...members }, signature: 'unchecked' }),
    );
  }

  private apply(e: RecordEntry<object>): any {
    this.now += 1000;
    this.log.push(e);
    return applyEntry(this.state, e);
  }

  signed(handle: string, type: string, members: Record<string, unknown>) {
    const payload = {
      protocol: PROTOCOL,
      type,
      agent: { handle, publicKey: `key-of-${handle}` },
      ts: new Date(this.now).toISOString(),
      ...members,
    };
    return { payload, signature: 'unchecked' };
  }

  /** Registers an agent; an op_ operator is reached by pairing, as the record requires. */
  agent(handle: string, operatorId: string): string {
    const body: Record<string, unknown> = { handle, publicKey: `key-of-${handle}`, constitution: { version: '1', hash: '0'.repeat(64) } };
    if (operatorId.startsWith('op_')) {
      const code = `pairing-code-for-${handle}`;
      this.apply(this.entry('operator.pairing', { payload: { codeHash: sha256TextHex(code), operatorId }, signature: 'unchecked' }));
      body.pairing = code;
    } else body.operatorId = operatorId;
    this.apply(this.entry('agent.register', body));
    return handle;
  }

  /** Publishes a paper of claims at the given confidences; returns its claim refs. */
  paper(handle: string, claims: { confidence?: number; kind?: 'empirical' | 'conceptual' }[] = [{}], buildsOn: object[] = []): string[] {
    const members = {
      title: 'A title',
      abstract: `An abstract of at least fifty characters, entry ${this.state.size}.`,
      field: 'ml',
      claims: claims.map((c, i) => ({
        text: `Claim ${i} text`,
        confidence: c.confidence ?? 0.8,
        test: 'A refuting test',
        ...(c.kind ? { kind: c.kind } : {}),
      })),
      builds_on: buildsOn,
    };
    return this.admit('paper', this.signed(handle, 'paper', members)).claims;
  }

  external(handle: string, quote: string): string {
    return this.admit(
      'claim.external',
      this.signed(handle, 'claim.external', { source: 'doi:10.1234/abc', quote, test: 'What data count and what fails it' }),
    ).ref;
  }

  /** Commits, seals and results a receipt; returns its id. */
  receipt(handle: string, target: string, outcome: 'confirmed' | 'failed' | 'inconclusive', o: ReceiptOptions = {}): string {
    const bundle = {
      repo: 'https://example.org/r.git',
      commit: 'a'.repeat(40),
      run: `make run ${this.state.size}`,
      outputs: [{ name: 'acc', tolerance: 0.01 }],
      runtimeMinutes: o.runtimeMinutes ?? 30,
    };
    const id = this.admit(
      'check.commit',
      this.signed(handle, 'check.commit', { target, kind: o.kind ?? 'replication', bundle, ...(o.models ? { models: o.models } : {}) }),
    ).id;
    const seed = o.seed ?? 0;
    const crossCheck = drawCrossCheck(this.state, this.state.receipts.get(id)!, seed);
    this.event('check.seal', { commit: id, seal: 'unchecked', seed, crossCheck });
    let cross = null;
    if (crossCheck !== null) {
      const other = this.state.receipts.get(crossCheck)!.result!.outputs.acc as number;
      cross = { receipt: crossCheck, outputs: { acc: o.crossMatch === false ? other + 1 : other } };
    }
    this.admit(
      'check.result',
      this.signed(handle, 'check.result', { commit: id, outcome, outputs: { acc: o.acc ?? 0.9 }, crossCheck: cross }),
    );
    return id;
  }

  review(handle: string, claim: string, forecast: number, models?: string[]): string {
    return this.admit(
      'review',
      this.signed(handle, 'review', {
        claim,
        forecast,
        rationale: `A rationale of thirty characters or more, ${this.state.size}.`,
        ...(models ? { models } : {}),
      }),
    ).id;
  }

  argue(handle: string, claim: string, stance = 'refutes', grounds = 'logical-gap'): string {
    const text = `An argument of eighty characters or more about ${claim}, entry ${this.state.size}.`.padEnd(90, '.');
    return this.admit('argument.file', this.signed(handle, 'argument.file', { claim, stance, grounds, text, confidence: 0.6 })).id;
  }

  checkArg(handle: string, argument: string, holds: boolean, models?: string[]): any {
    return this.admit(
      'argument.check',
      this.signed(handle, 'argument.check', { argument, holds, note: 'A note of twenty characters.', ...(models ? { models } : {}) }),
    );
  }

  score(ref: string): Score {
    return this.state.numbers.scores.get(ref)!;
  }
}
