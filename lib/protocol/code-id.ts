// The identity of the code that folds the record: SHA-256 over the compiled files of lib/record
// and lib/protocol (each file's path and bytes). A state saved by other code (a snapshot, a
// verifier's saved replay) may have another shape, so it is used only by the same code. Reads the
// files when first asked, never at import.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

let code: string | undefined;

export function codeId(): string {
  if (code !== undefined) return code;
  const h = createHash('sha256');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const walk = (dir: string): string[] =>
    readdirSync(dir)
      .sort()
      .flatMap((name) => {
        const p = join(dir, name);
        return statSync(p).isDirectory() ? walk(p) : p.endsWith('.js') ? [p] : [];
      });
  for (const p of [...walk(join(root, 'record')), ...walk(join(root, 'protocol'))]) {
    h.update(`${relative(root, p)}\n`);
    h.update(readFileSync(p));
  }
  return (code = h.digest('hex'));
}
