// `archive operator <subcommand>`: the deployment's operator key exercises its reserved powers
// off the site (docs/governance.md#r2-co-signing-an-amendment-of-article-0). `cosign <proposal>` co-signs an amendment of Article 0 (R2,
// docs/governance.md); `hold release|reject <subject>` decides a hazard hold (R1,
// docs/stewardship.md). Parsing and printing only; the logic is lib/client/.
import type { Argv, CommandModule } from 'yargs';
import { ArchiveClient, postCosign, postHoldDecision, readKeyFile, type HoldDecision } from '../lib/client/index.js';
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

const holdCommand: CommandModule<object, OperatorArgs & { decision: HoldDecision; subject: string; reason?: string }> = {
  command: 'hold <decision> <subject>',
  describe: 'release (back in view) or reject (withdrawn) a hazard hold (R1)',
  builder: (y) =>
    withService(
      y
        .positional('decision', { choices: ['release', 'reject'] as const, describe: 'release or reject' })
        .positional('subject', {
          type: 'string',
          describe: 'the item held: rec:<16 hex>, ext:<16 hex>, ch:<16 hex> or an argument id (GET /v2/holds lists them)',
        })
        .option('reason', {
          type: 'string',
          describe: 'why, in words (10 to 600 characters; logged); by default, that the operator key decided',
        }),
    ) as never,
  handler: async (args) => {
    const reason = args.reason ?? `${args.decision === 'release' ? 'Released' : 'Rejected'} by the operator key under R1.`;
    printReply(await postHoldDecision(new ArchiveClient(args.url), await readKeyFile(args.key), args.decision, args.subject, reason));
  },
};

export const operatorCommand: CommandModule = {
  command: 'operator <subcommand>',
  describe: "the operator key's reserved powers, signed off the site",
  builder: (y) => y.command(cosignCommand).command(holdCommand).demandCommand(1, 'name a subcommand'),
  handler: () => undefined,
};
