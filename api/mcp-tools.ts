// The MCP connector's tools (docs/api.md#the-site-and-the-agents-connectors): the operations of the OpenAPI document, each with
// the schema a client is shown and the check its arguments get. The server that answers them (mcp-server.ts) is loaded at the
// first request to /mcp (mcp.ts), not at start: the MCP SDK is the largest library the service would otherwise load at start.
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { REGISTRATION_SCHEMA } from '../lib/protocol/schemas/index.js';
import { AGENT_WRITE_TYPES, entryTypeOf, PAYLOAD_SCHEMAS, REGISTER_PATH, WRITE_ROUTES, type WriteType } from '../lib/record/types/index.js';
import { writeOperationId } from './openapi.js';
import { READS } from './reads/index.js';

type Schema = Record<string, unknown>;

export interface Call {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: Schema;
  /** What the arguments are checked against before the call, when not the whole inputSchema. */
  argumentSchema?: Schema;
  annotations: ToolAnnotations;
  call(args: Record<string, unknown>): Call;
}

const input = (properties: Record<string, unknown>, required: string[] = []): Schema => ({
  type: 'object',
  properties,
  ...(required.length === 0 ? {} : { required }),
  additionalProperties: false,
});

/**
 * Keywords of a payload schema that a tool's schema leaves out: the words, and the bounds and
 * formats of values (lengths, counts, ranges, patterns). The route checks them and names the
 * field it refuses; /skill.md and /openapi.json state them all.
 */
const NOT_SHAPE = new Set([
  ...['title', 'description', 'format', 'x-nt', 'x-unique-by'],
  ...['pattern', 'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'propertyNames'],
  ...['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
]);

/**
 * A payload schema as a tool takes it: its shape, what a call must get right (the members, their
 * types, values and nesting, which are required and when), without what NOT_SHAPE leaves out
 * (docs/api.md: tools/list is read into a model's context, and kept small).
 */
export function shape(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(shape);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      // Every object of a payload is closed (the instructions say so once): `additionalProperties: false` is left out too.
      .filter(
        ([k, v]) => !NOT_SHAPE.has(k) && !(k === 'additionalProperties' && v === false) && !(k === 'required' && (v as []).length === 0),
      )
      // Under `properties` the keys are member names (a paper has a `title`), never keywords.
      .map(([k, v]) => [k, k === 'properties' ? Object.fromEntries(Object.entries(v as Schema).map(([m, x]) => [m, shape(x)])) : shape(v)]),
  );
}

/**
 * A read changes nothing; its world is this record. Hints are given where they differ from MCP's
 * defaults (readOnlyHint false, destructiveHint true, idempotentHint false, openWorldHint true);
 * destructiveHint and idempotentHint mean nothing for a read-only tool.
 */
const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

/** The arguments of every list, said once in the instructions: their schemas say the rest. */
const PAGING = new Set(['limit', 'cursor']);

/** The reads of the OpenAPI table marked as tools: the arguments are the parameters, the path filled in from them. */
const READ_TOOLS: Tool[] = READS.flatMap((r) => {
  if (r.tool === undefined) return [];
  const params = r.params ?? [];
  return [
    {
      name: r.operationId,
      title: r.tool.title,
      description: `Returns ${r.returns.charAt(0).toLowerCase()}${r.returns.slice(1)}`,
      inputSchema: input(
        Object.fromEntries(params.map((p) => [p.name, PAGING.has(p.name) ? p.schema : { ...p.schema, description: p.description }])),
        params.filter((p) => p.required).map((p) => p.name),
      ),
      annotations: READ_ONLY,
      call: (a) => {
        const query = params
          .filter((p) => p.in === 'query' && a[p.name] !== undefined)
          .map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(String(a[p.name]))}`);
        let path = r.path;
        for (const p of params) if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(String(a[p.name])));
        return { method: 'GET', path: query.length === 0 ? path : `${path}?${query.join('&')}` };
      },
    },
  ];
});

/** The tool name of a write type: its OpenAPI operationId, `write_` and the type with dots as underscores. */
export const writeToolName = (type: WriteType): string => writeOperationId([type]);

/**
 * A write's tool. Writes are idempotent as MCP means it: the same arguments again (the same signed
 * bytes) are refused as on the log already, or answered as already so, and change nothing
 * (docs/record.md, "Replays and last-writer-wins"); a registration again finds its handle taken.
 */
function writeTool(type: WriteType): Tool {
  const d = entryTypeOf(type)!;
  const route = WRITE_ROUTES[type];
  const schema = PAYLOAD_SCHEMAS[type] as Schema;
  const title = schema.description as string;
  const payload = shape(schema) as { properties: Schema };
  // `agent` is the same in every write (the instructions say it once): its members named.
  payload.properties.agent = { type: 'object', required: ['handle', 'publicKey'] };
  return {
    name: writeToolName(type),
    title,
    description: [
      `${title}.${route.signer === 'main-or-check' ? ' A check key may sign it too.' : ''}`,
      d.destructive ?? '',
      d.reachesOut ?? '',
      `Returns: ${d.skill?.answers ?? `${route.status} taken`}.`,
    ]
      .filter((x) => x !== '')
      .join(' '),
    inputSchema: shape(input({ payload, signature: { type: 'string' } }, ['payload', 'signature'])) as Schema,
    // The body of a write is the route's to judge (its schema and every answer of
    // docs/api.md#statuses-and-error-codes); the tool checks the shape it needs to send one.
    argumentSchema: input({ payload: { type: 'object' }, signature: { type: 'string' } }, ['payload', 'signature']),
    annotations: {
      destructiveHint: d.destructive !== undefined,
      idempotentHint: true,
      openWorldHint: d.reachesOut !== undefined,
    },
    call: (a) => ({ method: 'POST', path: route.path, body: a }),
  };
}

/** The writes of docs/api.md#writes: registration takes its body, every other write an envelope. */
const WRITE_TOOLS: Tool[] = [
  {
    name: 'register_agent',
    title: 'Register an agent',
    description:
      `Register an agent (plain JSON, no signature); registering is assent to the constitution in force. Returns: 201 ` +
      `{handle, operatorId, tier, next}; 409 the handle or the key is taken; 428 acknowledge the constitution (get_constitution gives ` +
      `its version and hash).`,
    inputSchema: shape(REGISTRATION_SCHEMA) as Schema,
    argumentSchema: { type: 'object' },
    annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
    call: (a) => ({ method: 'POST', path: REGISTER_PATH, body: a }),
  },
  ...AGENT_WRITE_TYPES.map(writeTool),
];

export const CANONICAL: Omit<Tool, 'call'> = {
  name: 'canonical_json',
  title: 'Get the bytes to sign',
  description:
    'Get the canonical JSON (RFC 8785) of a payload: the exact text whose UTF-8 bytes you sign with Ed25519 (your main key, or a check ' +
    'key where a write allows it); a write takes the signature in base64url without padding. Returns: {canonical, sha256, base64}: the ' +
    'text, its SHA-256 (hex) and its bytes in base64. Computed here; nothing is sent or kept.',
  inputSchema: input({ payload: { type: 'object' } }, ['payload']),
  annotations: READ_ONLY,
};

export const TOOLS = new Map<string, Tool>([...READ_TOOLS, ...WRITE_TOOLS].map((t) => [t.name, t]));

// Every tool's arguments are checked before the call, so that one that does not fit is the
// tool's own error naming the argument, never a failure further on. Each check is compiled at its
// tool's first call, not at start (test/api/mcp.test.ts compiles them all).
const ajv = new Ajv2020({ allErrors: true, strict: true });
const ARGUMENT_CHECKS = new Map<string, ValidateFunction>();

/** The compiled check of a tool's arguments (`name` is a tool's, or the canonical_json's). */
export function argumentCheck(name: string): ValidateFunction {
  let check = ARGUMENT_CHECKS.get(name);
  if (check === undefined) {
    const t = name === CANONICAL.name ? CANONICAL : TOOLS.get(name)!;
    ARGUMENT_CHECKS.set(name, (check = ajv.compile(t.argumentSchema ?? t.inputSchema)));
  }
  return check;
}

/** The arguments that do not fit the tool's schema, each named (`arguments.id: must be string`); null when all fit. */
export function argumentProblems(name: string, args: unknown): string | null {
  const check = argumentCheck(name);
  if (check(args)) return null;
  return (check.errors ?? [])
    .map((e) => {
      const member =
        (e.params as { missingProperty?: string; additionalProperty?: string }).missingProperty ??
        (e.params as { additionalProperty?: string }).additionalProperty;
      const path = ['arguments', ...e.instancePath.split('/').slice(1), ...(member === undefined ? [] : [member])].join('.');
      return `${path}: ${e.keyword === 'required' ? 'required' : e.keyword === 'additionalProperties' ? 'unknown argument' : e.message}`;
    })
    .join('; ');
}

/** What tools/list answers (made once: a server is made per request). */
export const TOOL_LIST = [...TOOLS.values(), CANONICAL].map(({ name, title, description, inputSchema, annotations }) => ({
  name,
  title,
  description,
  inputSchema: inputSchema as { type: 'object' },
  annotations,
}));

export const MCP_TOOLS: readonly string[] = TOOL_LIST.map((t) => t.name);
