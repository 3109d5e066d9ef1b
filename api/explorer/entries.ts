// A log entry as the explorer names it: who wrote it and what it is about, read from its logged
// object (lib/record/views/subject.ts), for the log page and for the entries that moved a claim.
import type { LoggedEntry } from '../../lib/protocol/log-entry.js';
import type { State } from '../../lib/record/fold/index.js';
import { entrySubject, type Subject } from '../../lib/record/views/index.js';
import { isWriteType, SERVICE_EVENTS, WRITE_ROUTES } from '../../lib/record/types/index.js';

export interface EntryAbout {
  /** The agent that signed it or that a registration names; null for the service or the operator key. */
  agent: string | null;
  /** Who wrote it, in words: the agent's handle, "the operator key" or "the service". */
  who: string;
  subject: Subject | null;
}

/**
 * Who wrote an entry (the agent that signed it, the agent a registration names, the operator key, or the
 * service: the log key), and what it is about.
 */
export function aboutEntry(state: State, e: Pick<LoggedEntry, 'seq' | 'type' | 'payload'>): EntryAbout {
  const logged = JSON.parse(e.payload) as Record<string, unknown> & { handle?: unknown; payload?: { agent?: { handle?: unknown } } };
  const subject = entrySubject(state, e.seq, e.type, logged);
  if (SERVICE_EVENTS.has(e.type)) return { agent: null, who: 'the service', subject };
  const handle = e.type === 'agent.register' ? logged.handle : logged.payload?.agent?.handle;
  if (typeof handle === 'string') return { agent: handle, who: handle, subject };
  return { agent: null, who: isWriteType(e.type) && WRITE_ROUTES[e.type].signer === 'operator' ? 'the operator key' : '', subject };
}
