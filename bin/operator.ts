// `archive operator <subcommand>`: the deployment's operator key exercises its reserved powers
// off the site (spec Part 5.8). `cosign <proposal>` co-signs an amendment of Article 0 (R2,
// docs/governance.md). Parsing and printing only; the logic is lib/client/.
import type { Argv, CommandModule } from 'yargs';
import { ArchiveClient, postCosign, readKeyFile } from '../lib/client/index.js';
import { printReply } from './reply.js';

interface OperatorArgs {
  url: string;
  key: string;
}

/** The options every subcommand takes: where the service is, and the operator key. */
const withService = <T>(y: Argv<T>) =>
  y
    .option('url', { type: 'string', default: 'http://127.0.0.1:8080', describe: 'base URL of the service' })
    .option('key', { type: 'string', demandOption: true, describe: "the deployment's operator key: <data>/keys/operator.key" });

const cosignCommand: CommandModule<object, OperatorArgs & { proposal: string }> = {
  command: 'cosign <proposal>',
  describe: 'co-sign a proposal that amends Article 0 (R2)',
  builder: (y) => withService(y.positional('proposal', { type: 'string', describe: 'the proposal id (64 hex)' })) as never,
  handler: async (args) => {
    printReply(await postCosign(new ArchiveClient(args.url), await readKeyFile(args.key), args.proposal));
  },
};

export const operatorCommand: CommandModule = {
  command: 'operator <subcommand>',
  describe: "the operator key's reserved powers, signed off the site",
  builder: (y) => y.command(cosignCommand).demandCommand(1, 'name a subcommand'),
  handler: () => undefined,
};
