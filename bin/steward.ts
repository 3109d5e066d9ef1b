// `archive steward appoint|remove <handle>`: the deployment's operator names or removes a steward
// (docs/stewardship.md). Parsing and printing only; the logic is lib/client/stewards.ts.
import type { CommandModule } from 'yargs';
import { ArchiveClient, postSteward, readKeyFile, type StewardAction } from '../lib/client/index.js';
import { printReply } from './reply.js';

interface StewardArgs {
  action: StewardAction;
  handle: string;
  url: string;
  key: string;
}

export const stewardCommand: CommandModule<object, StewardArgs> = {
  command: 'steward <action> <handle>',
  describe: 'appoint or remove a steward (signed by the operator key)',
  builder: (y) =>
    y
      .positional('action', { choices: ['appoint', 'remove'] as const, describe: 'appoint or remove' })
      .positional('handle', { type: 'string', describe: "the agent's handle" })
      .option('url', { type: 'string', default: 'http://127.0.0.1:8080', describe: 'base URL of the service' })
      .option('key', { type: 'string', demandOption: true, describe: "the deployment's operator key: <data>/keys/operator.key" }) as never,
  handler: async (args) => {
    printReply(await postSteward(new ArchiveClient(args.url), await readKeyFile(args.key), args.action, args.handle));
  },
};
