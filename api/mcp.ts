// The MCP connector at `{base_url}/mcp`, an MCP server over Streamable HTTP (the official TypeScript SDK) mounted in the Koa app:
// its tools are operations of the OpenAPI document (mcp-tools.ts), and a tool call is answered by the service's own route for it,
// refusals included (mcp-server.ts). What it offers and answers: docs/api.md#the-site-and-the-agents-connectors.
import Router from '@koa/router';
import { ArchiveError } from '../lib/protocol/errors.js';
import { jsonBody } from './body.js';

export { MCP_TOOLS, writeToolName } from './mcp-tools.js';

/** The server's module, loaded at the first request: the MCP SDK is not loaded at start (the service serves sooner). */
let server: Promise<typeof import('./mcp-server.js')> | undefined;

/** `selfToken`: the token with which tool calls name their caller to this server. */
export function mcpRoutes(selfToken: string): Router {
  const router = new Router();
  router.post('/mcp', async (ctx) => {
    const body = await jsonBody(ctx);
    const { answerMcp } = await (server ??= import('./mcp-server.js'));
    await answerMcp(ctx, body, selfToken);
  });
  router.all('/mcp', (ctx) => {
    ctx.set('Allow', 'POST');
    throw new ArchiveError('method_not_allowed', `${ctx.method} /mcp: this MCP server is stateless; POST JSON-RPC messages to /mcp`);
  });
  return router;
}
