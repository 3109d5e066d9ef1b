// The write schemas are declared with typed builders (lib/protocol/schemas/shared.ts), each
// carrying its payload's TypeScript type; the JSON they emit must stay byte for byte what it was
// before (captured in fixtures/schemas/ from the plain builders), and so must the schemas the OpenAPI
// document shows.
import t from 'tap';
import { ENTRY_TYPES } from '../../lib/record/types/index.js';
import { openApiDocument } from '../../api/openapi.js';
import { fixtureJson, fixtureText } from '../helpers/fixtures.js';

const captured = fixtureJson<{ payloads: Record<string, string>; registration: string }>('schemas/schemas.json');

t.test('every payload schema and the registration body emit the JSON captured before', async (t) => {
  const writes = ENTRY_TYPES.filter((d) => d.origin === 'write');
  t.same(
    writes.map((d) => d.type),
    Object.keys(captured.payloads),
    'the same write types, in the same order',
  );
  for (const d of writes) t.equal(JSON.stringify(d.schema), captured.payloads[d.type], d.type);
  const registration = ENTRY_TYPES.find((d) => d.origin === 'registration');
  t.equal(JSON.stringify(registration?.schema), captured.registration, 'registration');
});

t.test('the OpenAPI document shows the same schemas as the one captured before', async (t) => {
  // Routes may be added or described anew since the capture; what the typed builders could
  // change is the schemas: every component and every write's request body. Receipt and
  // Argument were captured again when they gained `counts` and `note` (what a write counts,
  // docs/credence.md#what-a-write-counts), which is all that changed in them.
  const before = JSON.parse(fixtureText('schemas/openapi.json'));
  const now = openApiDocument() as typeof before;
  for (const [name, schema] of Object.entries(before.components.schemas))
    t.equal(JSON.stringify(now.components.schemas[name]), JSON.stringify(schema), `components.schemas.${name}`);
  let bodies = 0;
  for (const [path, item] of Object.entries<Record<string, { requestBody?: unknown }>>(before.paths)) {
    const body = item.post?.requestBody;
    if (body === undefined) continue;
    bodies++;
    t.equal(JSON.stringify(now.paths[path]?.post?.requestBody), JSON.stringify(body), `POST ${path}`);
  }
  t.equal(bodies, 27, 'every request body of the captured document compared');
});
