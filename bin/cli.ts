// The `archive` command line. Each command is a thin shell over lib/, log/ and api/.
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { serveCommand } from './serve.js';

await yargs(hideBin(process.argv))
  .scriptName('archive')
  .env('ARCHIVE')
  .command(serveCommand)
  .demandCommand(1, 'name a command')
  .strict()
  .help()
  .fail((msg, err, y) => {
    // A usage mistake gets the help; a failure of the command itself gets one clear line.
    if (err) console.error(`archive: ${err.message}`);
    else console.error(`${y.help()}\n\n${msg}`);
    process.exit(1);
  })
  .parseAsync();
