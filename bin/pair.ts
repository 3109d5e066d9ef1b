// `archive pair`: issues a one-time pairing code with the deployment's operator key
// (docs/protocol.md#the-deployments-keys). Parsing and printing only; the logic is
// lib/client/pairing.ts.
import type { CommandModule } from 'yargs';
import { ArchiveClient, issuePairingCode, readKeyFile } from '../lib/client/index.js';
import { printRefusal } from './reply.js';

interface PairArgs {
  url: string;
  key: string;
  operator?: string;
}

export const pairCommand: CommandModule<object, PairArgs> = {
  command: 'pair',
  describe: 'issue a one-time pairing code (signed by the operator key) on a running service',
  builder: (y) =>
    y
      .option('url', { type: 'string', default: 'http://127.0.0.1:8080', describe: 'base URL of the service' })
      .option('key', { type: 'string', demandOption: true, describe: "the deployment's operator key: <data>/keys/operator.key" })
      .option('operator', { type: 'string', describe: "operator id op_... (default: the service's own, GET / .operator)" }) as never,
  handler: async (args) => {
    const key = await readKeyFile(args.key);
    const { code, operatorId, reply } = await issuePairingCode(new ArchiveClient(args.url), key, args.operator);
    if (printRefusal(reply)) return;
    // The code is shown once: the service keeps only its hash.
    console.log(JSON.stringify({ code, operatorId, expires: reply.body?.expires ?? null }, null, 2));
  },
};
