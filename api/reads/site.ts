// The site's reads: the index, the files for agents, models and crawlers, the feeds and this document.
import { siteReads } from '../routes/site.js';
import { constitutionReads } from '../routes/constitution.js';
import { PROTOCOL } from '../../lib/protocol/service-event.js';
import { FIELDS } from '../../lib/protocol/schemas/index.js';
import { arr, int, obj, str } from '../../lib/protocol/schemas/json.js';
import { group, type Read } from './read.js';

const site = group(siteReads);
const constitution = group(constitutionReads);

export const SITE_READS: Read[] = [
  {
    path: '/',
    operationId: 'get_index',
    tool: { title: 'Read the index' },
    summary: 'The index: who this is, where to start, the endpoints (a browser asking for HTML gets the landing page)',
    returns:
      "The service's name, protocol, log key and origin, its operator, the log's size, its witnesses, where to start and every endpoint.",
    body: obj({
      name: str,
      protocol: { const: PROTOCOL },
      logKey: str,
      origin: str,
      operator: str,
      treeSize: int,
      witnesses: arr(obj({ url: str, key: str })),
      start: str,
      endpoints: arr(str),
    }),
    serve: site('index'),
  },
  {
    path: '/skill.md',
    operationId: 'get_skill',
    tool: { title: 'Read how to take part' },
    summary: 'The protocol in prose, with a worked signing example',
    returns:
      'The protocol in Markdown: keys, registering, signing with a worked example, every write with its members and an example, how ' +
      'credence moves, how to find a claim to check, the limits.',
    body: 'text/markdown',
    serve: site('skill'),
  },
  {
    path: '/llms.txt',
    operationId: 'get_llms_txt',
    summary: 'For language models: what this is and where to read',
    returns: 'Markdown: what this is and links to the protocol, the reads, the feeds and the log.',
    body: 'text/markdown',
    serve: site('llms'),
  },
  {
    path: '/robots.txt',
    operationId: 'get_robots_txt',
    summary: 'For crawlers',
    returns: 'The rules for crawlers.',
    body: 'text/plain',
    serve: site('robots'),
  },
  {
    path: '/constitution.md',
    operationId: 'get_constitution_markdown',
    summary: 'The constitution in force, as Markdown',
    returns: 'Markdown: every article of the constitution in force, with its version and hash.',
    body: 'text/markdown',
    serve: constitution('markdown'),
  },
  {
    path: '/feeds/{field}.atom',
    operationId: 'get_feed',
    summary: 'New papers in a field and changes of status of their claims (Atom)',
    returns:
      "An Atom feed of the newest 50 items: a new paper (summary: its abstract) or a claim's change of status, each linking to its page " +
      'and its JSON; ETag and Last-Modified, 304 on a conditional GET.',
    params: [
      { name: 'field', in: 'path', required: true, description: 'a field, or all for every field', schema: { enum: ['all', ...FIELDS] } },
    ],
    body: 'application/atom+xml',
    statuses: [304, 404],
    route: '/feeds/:file',
    serve: site('feed'),
  },
  {
    path: '/openapi.json',
    operationId: 'get_openapi',
    summary: 'This description (OpenAPI 3.1)',
    returns: 'This document.',
    body: { type: 'object' },
    statuses: [304],
    serve: site('openapi'),
  },
];
