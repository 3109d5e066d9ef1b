// Small helpers for benchmark figures.
import { cpus, totalmem } from 'node:os';

/** The q-quantile (0..1) of `xs`, by nearest rank. */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/** One line naming the machine, for docs/benchmarks.md. */
export function machine(): string {
  const c = cpus();
  return `${c.length} x ${c[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}
