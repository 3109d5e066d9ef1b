// Module paths and versions as the Go toolchain spells them: the checks of golang.org/x/mod/module
// (CheckPath, Check) and semver, and the case escaping of paths and versions in URLs ("!" before
// a lower-case letter stands for the upper-case one). A record names a module version only in
// the form Go itself would accept, so the lookups Go's client makes find it.

/** A path or version that is not as Go spells it; `detail` says what is wrong. */
export class ModuleError extends Error {}

const BAD_WINDOWS_NAMES = ['CON', 'PRN', 'AUX', 'NUL', ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((i) => [`COM${i}`, `LPT${i}`])];

/** module.checkElem for module paths: one non-empty element of ASCII letters, digits and - . _ ~. */
function checkElem(elem: string): void {
  if (elem === '') throw new ModuleError('empty path element');
  if (/^\.+$/.test(elem)) throw new ModuleError(`invalid path element "${elem}"`);
  if (elem.startsWith('.')) throw new ModuleError('leading dot in path element');
  if (elem.endsWith('.')) throw new ModuleError('trailing dot in path element');
  const bad = /[^A-Za-z0-9._~-]/.exec(elem);
  if (bad) throw new ModuleError(`invalid char ${JSON.stringify(bad[0])}`);
  const short = elem.split('.')[0]!;
  if (BAD_WINDOWS_NAMES.includes(short.toUpperCase())) throw new ModuleError(`"${short}" disallowed as path element component on Windows`);
  if (/~[0-9]+$/.test(short)) throw new ModuleError('trailing tilde and digits in path element');
}

/**
 * module.SplitPathVersion: the path's major-version suffix ("/vN" for N >= 2, or ".vN" for
 * gopkg.in), "" when it has none; null when its last element is a malformed one (like /v1, /v0, /v1.2).
 */
export function pathMajor(path: string): string | null {
  if (path.startsWith('gopkg.in/')) {
    const m = /\.v[0-9]+(-unstable)?$/.exec(path);
    if (m === null) return null;
    const major = path.slice(m.index);
    return major[2] === '0' && major !== '.v0' ? null : major;
  }
  const m = /\/v([0-9.]+)$/.exec(path);
  if (m === null || m.index === 0) return '';
  const n = m[1]!;
  if (n.includes('.') || n.startsWith('0') || n === '1') return null;
  return `/v${n}`;
}

/** module.CheckPath: throws ModuleError unless `path` is a valid module path. */
export function checkPath(path: string): void {
  if (path === '') throw new ModuleError('empty string');
  if (path.startsWith('-')) throw new ModuleError('leading dash');
  if (path.includes('//')) throw new ModuleError('double slash');
  if (path.endsWith('/')) throw new ModuleError('trailing slash');
  if (path.startsWith('/')) throw new ModuleError('leading slash');
  for (const elem of path.split('/')) checkElem(elem);
  const first = path.split('/')[0]!;
  if (!first.includes('.')) throw new ModuleError('missing dot in first path element');
  const bad = /[^a-z0-9.-]/.exec(first);
  if (bad) throw new ModuleError(`invalid char ${JSON.stringify(bad[0])} in first path element`);
  if (pathMajor(path) === null) throw new ModuleError('invalid version');
}

// semver: vMAJOR.MINOR.PATCH, an optional pre-release of dot-separated identifiers (numeric ones
// without leading zeros); a canonical version has no build metadata but "+incompatible".
const NUM = '(?:0|[1-9][0-9]*)';
const PRE_ID = `(?:${NUM}|[0-9]*[A-Za-z-][0-9A-Za-z-]*)`;
const CANONICAL = new RegExp(`^v(${NUM})\\.${NUM}\\.${NUM}(?:-${PRE_ID}(?:\\.${PRE_ID})*)?(\\+incompatible)?$`);

/**
 * module.Check with the version canonical (what the Go toolchain records in go.sum): throws
 * ModuleError unless `version` is a semantic version vX.Y.Z[-pre][+incompatible] that the path's
 * major version admits.
 */
export function checkModuleVersion(path: string, version: string): void {
  checkPath(path);
  const m = CANONICAL.exec(version);
  if (m === null) throw new ModuleError(`version "${version}" is not a canonical semantic version (vX.Y.Z[-pre][+incompatible])`);
  const major = `v${m[1]}`;
  const incompatible = m[2] !== undefined;
  const suffix = pathMajor(path)!;
  if (suffix === '') {
    if (incompatible && (major === 'v0' || major === 'v1')) throw new ModuleError(`version "${version}": +incompatible needs v2 or later`);
    if (!incompatible && major !== 'v0' && major !== 'v1') throw new ModuleError(`version "${version}" should be v0 or v1, not ${major}`);
    return;
  }
  if (incompatible) throw new ModuleError(`version "${version}": +incompatible with a path that has a major version`);
  const want = suffix.slice(1).replace(/-unstable$/, '');
  // module.CheckPathMajor allows an old bug: v0.0.0- pseudo-versions for gopkg.in .v1.
  if (want === 'v1' && suffix.startsWith('.') && version.startsWith('v0.0.0-')) return;
  if (major !== want) throw new ModuleError(`version "${version}" should be ${want}, not ${major}`);
}

/** module.EscapePath / EscapeVersion's case encoding: each upper-case letter as "!" and the lower-case one. */
export function escapeCase(s: string): string {
  return s.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
}

/** module.unescapeString: the string `escaped` stands for, or null when it is not a valid escaping. */
export function unescapeCase(escaped: string): string | null {
  // eslint-disable-next-line no-control-regex -- ASCII only, as Go's escaping
  if (/[^\x00-\x7f]|[A-Z]|![^a-z]|!$/.test(escaped)) return null;
  return escaped.replace(/!([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** module.UnescapePath: the module path of an escaped one; throws ModuleError when it is not one. */
export function unescapePath(escaped: string): string {
  const path = unescapeCase(escaped);
  if (path === null) throw new ModuleError(`invalid escaped module path "${escaped}"`);
  try {
    checkPath(path);
  } catch (err) {
    throw new ModuleError(`invalid escaped module path "${escaped}": ${(err as Error).message}`);
  }
  return path;
}

/** module.UnescapeVersion: the version of an escaped one; throws ModuleError when it is not one. */
export function unescapeVersion(escaped: string): string {
  const v = unescapeCase(escaped);
  if (v === null) throw new ModuleError(`invalid escaped version "${escaped}"`);
  // The escaped form is a file name: no path separators, no characters the shell or Windows take apart.
  const windows = BAD_WINDOWS_NAMES.includes(v.split('.')[0]!.toUpperCase());
  if (v === '' || /^\.+$/.test(v) || v.endsWith('.') || windows || /[^A-Za-z0-9#$%&()+,\-.=@[\]^_{}~ ]/.test(v))
    throw new ModuleError(`invalid escaped version "${v}"`);
  return v;
}
