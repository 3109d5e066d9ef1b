// Test vectors live in log/test/fixtures/; tests run compiled from log/dist/test/, so resolve from the package's root.
import { readFileSync } from 'node:fs';

/** Reads and parses a JSON fixture under log/test/fixtures/. */
export function fixtureJson<T = any>(path: string): T {
  return JSON.parse(readFileSync(new URL(`../../../test/fixtures/${path}`, import.meta.url), 'utf8')) as T;
}
