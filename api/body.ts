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
  const type = mediaType(ctx);
  if (type !== 'application/json') throw badRequest(`content-type: expected application/json, got ${type === '' ? 'none' : type}`);
  const charset = ctx.request.charset;
  if (charset !== '' && charset.toLowerCase() !== 'utf-8') throw badRequest(`content-type: charset must be utf-8, got ${charset}`);
  return readAtMost(ctx, MAX_BODY_BYTES, tooLarge);
}

/** The media type of `ctx`'s content-type, in lower case ('' when none): media types are case-insensitive (RFC 9110 8.3.1). */
export const mediaType = (ctx: Koa.Context): string => (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();

/** The body of `ctx`, read until it passes `max` bytes: then reading stops, and `tooLarge()` is thrown (the connection closes after it). */
export async function readAtMost(ctx: Koa.Context, max: number, tooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      ctx.set('Connection', 'close');
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
