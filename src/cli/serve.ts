/**
 * `serve`: runs ONE host of a topology file (its leaves, aggregators and/or the root), for
 * deployments where every host is its own process or container (docker-compose.yml runs
 * one service per host of deploy/topology.json).
 *
 *   node --import tsx src/cli/serve.ts --topology FILE --host NAME [--cache-dir DIR] [--faults FILE]
 *
 * Environment: CANOPY_TREE_TOKEN (required: the token shared by every host of the tree; never
 * logged), CANOPY_API_TOKEN (optional, root only: require a bearer token), each also as
 * `<NAME>_FILE` naming a file that holds it (compose secrets, Kubernetes Secret volumes; a
 * missing or empty file stops the start), HOST (interface to listen on; default 127.0.0.1,
 * 0.0.0.0 in the Docker image).
 * Exit code 1 with `canopy: CODE: message` on a bad topology, host name or data.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CanopyError } from '../merge/index.ts';
import { startHost } from './node-host.ts';
import { apiTokenFromEnv, runService, secretFromEnv, stopOnSignals } from './service.ts';

const USAGE = `usage: serve --topology FILE --host NAME [--cache-dir DIR] [--faults FILE]
  environment: CANOPY_TREE_TOKEN (required, the same on every host), CANOPY_API_TOKEN (root API bearer token),
               each also as NAME_FILE (a file holding it), HOST (interface to listen on, default 127.0.0.1)`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { topology: { type: 'string' }, host: { type: 'string' }, 'cache-dir': { type: 'string' }, faults: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help === true) {
    console.log(USAGE);
    return;
  }
  if (values.topology === undefined || values.host === undefined) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `--topology and --host are required\n${USAGE}`);
  const token = secretFromEnv('CANOPY_TREE_TOKEN');
  if (token === undefined) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', 'set CANOPY_TREE_TOKEN (or CANOPY_TREE_TOKEN_FILE, a file holding it) to the same secret on every host of the tree');
  let topology: unknown;
  try {
    topology = JSON.parse(readFileSync(values.topology, 'utf8'));
  } catch (e) {
    throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `topology file ${values.topology} cannot be read as JSON: ${(e as Error).message}`);
  }
  const apiToken = apiTokenFromEnv();
  const host = await startHost({
    topology,
    host: values.host,
    listen: process.env.HOST ?? '127.0.0.1',
    token,
    cacheDir: resolve(values['cache-dir'] ?? '.canopy-cache'),
    ...(values.faults === undefined ? {} : { faults: resolve(values.faults) }),
    ...(apiToken === undefined ? {} : { apiToken }),
    log: (m) => console.log(`canopy: ${m}`),
  });
  console.log(`canopy: host ${values.host} serving ${Object.keys(host.urls).length} node(s)`);
  stopOnSignals(() => host.close());
}

runService(main);
