// Test data lives in <project>/fixtures/; tests run compiled from dist/test/, so resolve from the root.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The project's root directory. */
export const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** Reads a fixture file as text. */
export function fixtureText(path: string): string {
  return readFileSync(new URL(`../../../fixtures/${path}`, import.meta.url), 'utf8');
}

/** Reads and parses a JSON fixture. */
export function fixtureJson<T = any>(path: string): T {
  return JSON.parse(fixtureText(path)) as T;
}
