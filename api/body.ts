// Request bodies: JSON only, at most 64 KiB (answered 413 before any parsing), parsed strictly
// (duplicate member names, lone surrogates and non-finite numbers answer 400; docs/protocol.md).
import type Koa from 'koa';
import { ArchiveError, badRequest } from '../lib/protocol/errors.js';
import { parseJson } from '../lib/protocol/strict-json.js';

export const MAX_BODY_BYTES = 64 * 1024;

const tooLarge = () => new ArchiveError('payload_too_large', `body: larger than ${MAX_BODY_BYTES} bytes (64 KiB)`);

/** Reads and parses the JSON body of `ctx`. */
export async function jsonBody(ctx: Koa.Context): Promise<unknown> {
  const bytes = await bodyBytes(ctx);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw badRequest('body: not valid UTF-8');
  }
  if (text.length === 0) throw badRequest('body: empty; expected JSON');
  return parseJson(text, 'body');
}

/** The body of `ctx` as bytes, after the checks of its size and media type (413, 400). */
export async function bodyBytes(ctx: Koa.Context): Promise<Buffer> {
  const length = ctx.request.length;
  if (length !== undefined && length > MAX_BODY_BYTES) throw tooLarge();
  // Media types and parameter names are case-insensitive (RFC 9110 section 8.3.1).
  const type = (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
  if (type !== 'application/json') throw badRequest(`content-type: expected application/json, got ${type === '' ? 'none' : type}`);
  const charset = ctx.request.charset;
  if (charset !== '' && charset.toLowerCase() !== 'utf-8') throw badRequest(`content-type: charset must be utf-8, got ${charset}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      // Stop reading; the connection closes after the 413.
      ctx.set('Connection', 'close');
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
