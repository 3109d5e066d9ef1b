// How the commands print a service's reply: the body on stdout for 2xx; otherwise
// `HTTP <status>` and the body ({error, detail}) on stderr, and exit code 1.
import { ok, type Reply } from '../lib/client/index.js';

const json = (v: unknown): string => JSON.stringify(v, null, 2);

/** Prints a refusal on stderr and sets exit code 1; returns whether `reply` was one. */
export function printRefusal(reply: Reply): boolean {
  if (ok(reply)) return false;
  console.error(`HTTP ${reply.status}`);
  console.error(typeof reply.body === 'string' ? reply.body : json(reply.body));
  process.exitCode = 1;
  return true;
}

/** Prints a reply: the body on stdout for 2xx, a refusal as printRefusal does. */
export function printReply(reply: Reply): void {
  if (!printRefusal(reply)) console.log(json(reply.body));
}
