// `npm start -- --data DIR [--port P] [--host H] [--name NAME]`: serves the checksum database
// kept in DIR (made on first start). Prints `vkey <name>+<key ID>+<key>` (what a Go client is
// given, as in GOSUMDB) and `listening <url>`, then serves until SIGINT or SIGTERM.
import { runServer } from 'tlog-engine/servers';
import { openSumDB, DEFAULT_NAME } from './db.js';
import { sumdbServer } from './server.js';

await runServer({
  name: 'sumdb',
  data: "the database's directory (LevelDB under DIR/db, the note key in DIR/note.key)",
  options: {
    name: { arg: 'NAME', help: `the server name of a new database's note key (default ${DEFAULT_NAME}); an existing one keeps its own` },
  },
  async open(data, { name }) {
    const db = await openSumDB(data, name === undefined ? {} : { name });
    return {
      server: sumdbServer(db),
      announce: (url) => [`vkey ${db.key.vkey}`, `listening ${url} (records: ${db.log.size})`],
      close: () => db.close(),
    };
  },
});
