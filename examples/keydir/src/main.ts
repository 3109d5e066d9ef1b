// `npm start -- --data DIR [--port P] [--host H] [--origin O]`: serves the key directory kept in
// DIR (made on first start). Prints `vkey <vkey>` (what clients check answers with) and
// `listening <url>`, then serves until SIGINT or SIGTERM, when it writes its snapshot and stops.
import { runServer } from 'tlog-engine/servers';
import { DEFAULT_ORIGIN, openKeyDir } from './keydir.js';
import { keydirServer } from './server.js';

await runServer({
  name: 'keydir',
  data: "the directory's data (LevelDB under DIR/db, the log key in DIR/log.key, DIR/state.snapshot)",
  options: { origin: { arg: 'O', help: `the origin of a new directory's log (default ${DEFAULT_ORIGIN}); an existing one keeps its own` } },
  async open(data, { origin }) {
    const dir = await openKeyDir(data, origin === undefined ? {} : { origin });
    return {
      server: keydirServer(dir),
      announce: (url) => [`vkey ${dir.vkey}`, `listening ${url} (entries: ${dir.log.size})`],
      close: () => dir.close(),
    };
  },
});
