// What falls due: from the state's queues of due times, the service events to log now (docs/record.md#service-events-and-time).
// It never changes what the record means: the events it asks for are checked and applied like any other entry.
import type { DueQueue, State } from './state.js';

export type DueEvent =
  | { type: 'check.seal'; commit: string }
  | { type: 'check.lapse'; commit: string }
  | { type: 'check.reveal'; commit: string }
  | { type: 'shutout.end'; claim: string; operatorId: string }
  | { type: 'governance.close'; proposal: string };

/** Takes from `q` every item due by `now`, keeping those still pending. */
function take(q: DueQueue, now: number, pending: (subject: string) => boolean): string[] {
  const out: string[] = [];
  while (q.head < q.items.length && q.items[q.head]!.at <= now) {
    const d = q.items[q.head++]!;
    if (pending(d.subject)) out.push(d.subject);
  }
  // Drop what was read, now and then, so the queue does not grow without end.
  if (q.head > 1024 && q.head * 2 > q.items.length) {
    q.items.splice(0, q.head);
    q.head = 0;
  }
  return out;
}

/** The service events due at `now` (ms), for the record to log in this order. */
export function dueEvents(state: State, now: number): DueEvent[] {
  const stage = (id: string) => state.receipts.get(id)?.stage;
  const events: DueEvent[] = [];
  for (const commit of take(state.due.unsealed, now, (id) => stage(id) === 'committed')) events.push({ type: 'check.seal', commit });
  for (const commit of take(state.due.lapse, now, (id) => stage(id) === 'sealed' || stage(id) === 'committed'))
    events.push({ type: 'check.lapse', commit });
  for (const commit of take(state.due.reveal, now, (id) => state.receipts.get(id)?.revealedSeq === null))
    events.push({ type: 'check.reveal', commit });
  // A shut-out renewed while in force (three more of its attacks dismissed) has a later end:
  // the earlier due time is stale, and an end logged then would be refused.
  const shutOutDue = (k: string) => {
    const s = state.shutOuts.get(k);
    return s !== undefined && s.endedSeq === null && s.until <= now;
  };
  for (const key of take(state.due.shutOutEnd, now, shutOutDue)) {
    const s = state.shutOuts.get(key)!;
    events.push({ type: 'shutout.end', claim: s.claim, operatorId: s.operatorId });
  }
  for (const proposal of take(state.due.close, now, (id) => state.governance.proposals.get(id)?.closed === null))
    events.push({ type: 'governance.close', proposal });
  return events;
}
