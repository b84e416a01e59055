/**
 * `npm start`: launches the whole local tree on loopback (root, aggregator and leaf processes) over the default flights data
 * (or `--data PATH`), prints the URL and a curl example, and stops everything on Ctrl-C.
 *
 * Options: --data PATH  --table NAME  --shards N  --fanout F  --depth D
 *          --partition hash|range:COLUMN  --leaf-processes P  --placement subtrees|tiers
 *          --aggregator-processes A (placement tiers)
 *          --cache-dir DIR  --faults FILE
 *          --replicas R  --zones Z  --hedge  --eject on|off
 *          --pg-port N (PostgreSQL wire protocol, default 5433; 0 switches it off)
 * Environment: PORT (default 8080), HOST (default 127.0.0.1), PG_PORT (as --pg-port).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_DATA_PATH } from '../data/index.ts';
import { CanopyError, type PartitionSpec } from '../merge/index.ts';
import { shellDoubleQuoted, shellSingleQuoted, sqlTableName } from './examples.ts';
import { startLocalTree } from './local-tree.ts';
import { parsePartition } from './node-host.ts';
import { apiTokenFromEnv, runService, stopOnSignals } from './service.ts';

const USAGE = `usage: npm start -- [--data PATH] [--table NAME] [--shards N] [--fanout F] [--depth D]
                    [--partition hash|range:COLUMN] [--leaf-processes P]
                    [--placement subtrees|tiers] [--aggregator-processes A] [--cache-dir DIR]
                    [--faults FILE] [--replicas R] [--zones Z] [--hedge] [--eject on|off]
                    [--max-in-flight N] [--max-queued N] [--pg-port N]
  environment: PORT (8080; 0: any free port), HOST (127.0.0.1), PG_PORT (5433; as --pg-port, 0 = off), CANOPY_API_TOKEN (require a bearer token),
               CANOPY_TREE_TOKEN (token between tiers; generated when absent)
  PATH: a .parquet or .csv file (split into N shards), or a directory (one shard per file)
  --leaf-processes P: processes hosting the leaves (default 2)
  --placement: subtrees (default with 1 replica): each of the P processes holds whole subtrees, aggregators
               with their leaves, which answer them in-process; tiers (default with replicas): the
               aggregators in A processes of their own (--aggregator-processes, default 1), every hop over HTTP
  --replicas R: endpoints per leaf (default 1; 2 with --hedge), over Z zones round-robin (default R)
  --hedge: hedged requests to replicas (p95 delay, 5% budget); --eject: outlier ejection (default on)`;

function positiveInt(name: string, v: string | undefined, def: number): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `--${name} must be a positive integer, got '${v}'\n${USAGE}`);
  return n;
}

/** PORT: 0 (any free port; the URL printed says which) to 65535. */
function portOf(v: string | undefined): number {
  if (v === undefined || v === '') return 8080;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `PORT must be a port number (0 for any free port), got '${v}'`);
  return n;
}

function partitionOf(v: string | undefined): PartitionSpec {
  try {
    return parsePartition(v);
  } catch (e) {
    throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `--${(e as Error).message}`);
  }
}

/**
 * The placement of the tree's nodes on processes: `--placement` as given, else `subtrees` for an
 * unreplicated tree without `--aggregator-processes`, else `tiers` (replicas are spread over
 * zones, which a subtree's process is not).
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST for another value, or `subtrees` with replicas or
 *   with `--aggregator-processes` (which it would ignore).
 */
function placementOf(v: string | undefined, replicas: number, aggregatorProcesses: string | undefined): 'subtrees' | 'tiers' {
  if (v !== undefined && v !== 'subtrees' && v !== 'tiers') throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `--placement must be 'subtrees' or 'tiers', got '${v}'`);
  if (v === 'subtrees' && replicas > 1) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `--placement subtrees holds one replica of each leaf; with --replicas ${replicas} use --placement tiers`);
  if (v === 'subtrees' && aggregatorProcesses !== undefined) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', '--aggregator-processes applies to --placement tiers; with subtrees the aggregators run in the --leaf-processes processes, beside their leaves');
  return v ?? (replicas > 1 || aggregatorProcesses !== undefined ? 'tiers' : 'subtrees');
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        data: { type: 'string' },
        table: { type: 'string' },
        shards: { type: 'string' },
        fanout: { type: 'string' },
        depth: { type: 'string' },
        partition: { type: 'string' },
        'leaf-processes': { type: 'string' },
        'aggregator-processes': { type: 'string' },
        placement: { type: 'string' },
        'cache-dir': { type: 'string' },
        faults: { type: 'string' },
        'max-in-flight': { type: 'string' },
        'max-queued': { type: 'string' },
        replicas: { type: 'string' },
        zones: { type: 'string' },
        hedge: { type: 'boolean' },
        eject: { type: 'string' },
        'pg-port': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
  } catch (e) {
    // An unknown option or a missing value: say so as the other bad options do, with the usage.
    throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `${(e as Error).message}\n${USAGE}`);
  }
  const { values } = parsed;
  if (values.help === true) {
    console.log(USAGE);
    return;
  }
  const port = portOf(process.env.PORT);
  const data = values.data === undefined ? DEFAULT_DATA_PATH : resolve(values.data);
  const table = values.table ?? 'flights';
  const hedge = values.hedge === true;
  const replicas = positiveInt('replicas', values.replicas, hedge ? 2 : 1);
  if (values.eject !== undefined && values.eject !== 'on' && values.eject !== 'off') throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `--eject must be 'on' or 'off', got '${values.eject}'`);
  if (hedge && replicas < 2) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', '--hedge needs at least 2 replicas (--replicas 2 or more)');
  const placement = placementOf(values.placement, replicas, values['aggregator-processes']);
  const apiToken = apiTokenFromEnv();
  const pgPortText = values['pg-port'] ?? process.env.PG_PORT ?? '5433';
  const pgPort = Number(pgPortText);
  if (!Number.isInteger(pgPort) || pgPort < 0 || pgPort > 65535) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `--pg-port must be a port in [0, 65535] (0: off), got '${pgPortText}'`);
  const tree = await startLocalTree({
    data,
    table,
    shards: positiveInt('shards', values.shards, 100),
    partition: partitionOf(values.partition),
    fanout: positiveInt('fanout', values.fanout, 10),
    ...(values.depth === undefined ? {} : { depth: positiveInt('depth', values.depth, 1) }),
    leafProcesses: positiveInt('leaf-processes', values['leaf-processes'], 2),
    aggregatorProcesses: positiveInt('aggregator-processes', values['aggregator-processes'], 1),
    placement,
    port,
    host: process.env.HOST ?? '127.0.0.1',
    cacheDir: resolve(values['cache-dir'] ?? '.canopy-cache'),
    ...(values.faults === undefined ? {} : { faults: resolve(values.faults) }),
    replicas,
    zones: positiveInt('zones', values.zones, replicas),
    tail: { hedge: hedge ? {} : false, ejection: values.eject === 'off' ? false : {} },
    admission: { maxInFlight: positiveInt('max-in-flight', values['max-in-flight'], 16), maxQueued: positiveInt('max-queued', values['max-queued'], 64) },
    ...(apiToken === undefined ? {} : { apiToken }),
    ...(pgPort === 0 ? {} : { pgPort }),
    log: (m) => console.log(`canopy: ${m}`),
  });
  const cols = tree.catalog.table.columns.map((c) => `${c.name} ${c.type}`).join(', ');
  const count = `SELECT count(*) FROM ${sqlTableName(tree.catalog.table)}`;
  const example = table === 'flights' ? 'SELECT origin, count(*) AS flights, avg(delay) AS avg_delay FROM flights GROUP BY origin ORDER BY flights DESC LIMIT 5' : count;
  console.log(`\ncanopy is serving table '${table}' (${cols}) at ${tree.url}`);
  console.log(`dashboard: ${tree.url}/   metrics: ${tree.url}/metrics\n`);
  // Injected faults change every answer: say so where the user looks first.
  if (values.faults !== undefined) console.log(`fault injection is ON: the leaves follow ${resolve(values.faults)}\n`);
  // With a token, the example names the variable (the shell expands it), never the token itself.
  const auth = apiToken === undefined ? '' : ` \\\n    -H "authorization: Bearer $CANOPY_API_TOKEN"`;
  console.log(`try:\n  curl -s ${tree.url}/v1/query -H 'content-type: application/json'${auth} \\\n    -d ${shellSingleQuoted(JSON.stringify({ sql: example }))}\n`);
  if (apiToken !== undefined) console.log('The API requires CANOPY_API_TOKEN as a bearer token; the dashboard asks for it.\n');
  if (tree.pg !== undefined) {
    const [pgHost, port] = [tree.pg.slice(0, tree.pg.lastIndexOf(':')), tree.pg.slice(tree.pg.lastIndexOf(':') + 1)];
    const auth = apiToken === undefined ? 'trust: loopback clients need no password, others are refused (set CANOPY_API_TOKEN to require one)' : 'password: CANOPY_API_TOKEN (SCRAM-SHA-256), any user name';
    console.log(`PostgreSQL protocol on ${tree.pg} (${auth}):\n  ${apiToken === undefined ? '' : 'PGPASSWORD="$CANOPY_API_TOKEN" '}psql -h ${pgHost} -p ${port} -U canopy canopy -c ${shellDoubleQuoted(count)}\n`);
  }
  console.log('Ctrl-C stops every process this started.');
  stopOnSignals(() => tree.close(), () => console.log('\ncanopy: stopping'));
}

runService(main);
