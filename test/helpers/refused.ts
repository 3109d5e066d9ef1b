// Refusals as a user sees them, for HTTP tests: the status, a detail naming the field, and
// nothing written (the record's size unchanged).
import type { Test } from 'tap';
import type { TestService } from './service.js';

export async function refused(t: Test, s: TestService, what: string, reply: Promise<{ status: number; body: any }>, status: number, field: RegExp): Promise<void> {
  const size = s.record.state.size;
  const r = await reply;
  t.equal(r.status, status, `${what}: status (${JSON.stringify(r.body)})`);
  t.match(r.body?.detail, field, `${what}: detail names it`);
  t.equal(s.record.state.size, size, `${what}: nothing written`);
}
