// `npm start -- --data DIR [--port P] [--host H] [--origin O]`: serves the statement log kept in
// DIR (made on first start). Prints `vkey <vkey>` (what the verifier is given) and
// `listening <url>`, then serves until SIGINT or SIGTERM.
import { runServer } from 'tlog-engine/servers';
import { DEFAULT_ORIGIN, openStatementLog, statementServer } from './server.js';

await runServer({
  name: 'statements',
  data: "the log's data (LevelDB under DIR/db, the log key in DIR/log.key)",
  options: { origin: { arg: 'O', help: `the origin of a new log (default ${DEFAULT_ORIGIN}); an existing one keeps its own` } },
  async open(data, { origin }) {
    const s = await openStatementLog(data, origin === undefined ? {} : { origin });
    return {
      server: statementServer(s),
      announce: (url) => [`vkey ${s.vkey}`, `listening ${url} (entries: ${s.log.size})`],
      close: () => s.close(),
    };
  },
});
