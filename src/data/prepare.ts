/**
 * prepareShards: source files -> partitioned Arrow IPC shard files + catalog.json, cached
 * under a key derived from the source's identity and the sharding options.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { tableFromIPC, tableToIPC } from 'apache-arrow';
import type { Table } from 'apache-arrow';
import { CanopyError, unknownNameMessage } from '../merge/errors.ts';
import type { Catalog, ColumnStats, PartitionSpec, TableSchema } from '../merge/types.ts';
import { gather, nullColumn, type Loaded } from './columns.ts';
import { arrowSchemaOf, validateShard, type StoredType } from './contract.ts';
import { loadCsv } from './csv.ts';
import { encodeShard } from './encode.ts';
import { loadParquet } from './parquet.ts';
import { hashGroups, rangeGroups, type Groups } from './partition.ts';
import { buildCatalog, catalogFromJSON, catalogToJSON, describePartition, shardStats } from './stats.ts';

/**
 * Version of the shard file layout and catalog format, and of how loading reads a source
 * file; part of the cache key, so bumping it makes every cached preparation stale. 5: a
 * blank line of a one-column CSV is a NULL row, only ASCII whitespace is trimmed before
 * typing a CSV value, and invalid UTF-8, mixed CSV line endings, names differing only in
 * case and logical-only Parquet DATEs are refused (a version-4 cache of such a file would
 * keep answering as before). 6: a CSV's first row is data when DuckDB's sniffer reads it so
 * (no header: columns column0, column1, ...), CSV header names are trimmed of spaces, and
 * Parquet FLOAT columns are refused. 7: Parquet DATE columns and CSV columns of plain dates
 * are stored as `date` columns (Float64 tagged `canopy.type: date`), no longer as timestamps.
 */
export const FORMAT_VERSION = 7;

/** Most shards prepareShards makes. */
export const MAX_SHARDS = 10_000;

/** Options of {@link prepareShards}. */
export interface PrepareOptions {
  /** A `.parquet` file, a `.csv` file, or a directory whose `.parquet`/`.csv` files are one shard each. */
  readonly path: string;
  /** Table name in the catalog. */
  readonly table: string;
  /** Number of shards for a single-file source, 1..10,000 (ignored for a directory). */
  readonly shards: number;
  /** How a single-file source is split (a directory is always `{kind:'file'}`). */
  readonly partition: PartitionSpec;
  /** Folder holding prepared shards, one sub-folder per cache key. */
  readonly cacheDir: string;
}

/** What {@link prepareShards} returns. */
export interface PreparedShards {
  readonly catalog: Catalog;
  /** Absolute path of the Arrow IPC file of shard i, at index i. */
  readonly files: string[];
  /** The folder holding the files and catalog.json. */
  readonly dir: string;
  /** True when an existing preparation was reused without reading the source. */
  readonly cached: boolean;
}

interface SourceFile {
  readonly path: string;
  readonly name: string;
  readonly format: 'parquet' | 'csv';
  readonly size: number;
  readonly mtimeMs: number;
}

function dataError(message: string, cause?: unknown): CanopyError {
  return new CanopyError('CANOPY_ERR_DATA', message, cause === undefined ? {} : { cause });
}

function formatOf(name: string): 'parquet' | 'csv' | null {
  const ext = extname(name).toLowerCase();
  return ext === '.parquet' ? 'parquet' : ext === '.csv' ? 'csv' : null;
}

async function describeSource(path: string): Promise<{ kind: 'file' | 'dir'; files: SourceFile[] }> {
  const abs = resolve(path);
  let st;
  try {
    st = await stat(abs);
  } catch (e) {
    throw dataError(`data path ${abs} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); give a .parquet file, a .csv file or a directory of them`, e);
  }
  const check = (f: SourceFile): SourceFile => {
    if (f.size === 0) throw dataError(`data file ${f.path} is empty (0 bytes); give a non-empty .parquet or .csv file`);
    return f;
  };
  if (st.isFile()) {
    const format = formatOf(abs);
    if (format === null) throw dataError(`data path ${abs} is neither .parquet nor .csv; give a .parquet file, a .csv file or a directory of them`);
    return { kind: 'file', files: [check({ path: abs, name: basename(abs), format, size: st.size, mtimeMs: st.mtimeMs })] };
  }
  if (!st.isDirectory()) throw dataError(`data path ${abs} is not a file or directory; give a .parquet file, a .csv file or a directory of them`);
  let names: string[];
  try {
    names = await readdir(abs);
  } catch (e) {
    throw dataError(`directory ${abs} cannot be listed (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); check its permissions`, e);
  }
  const dataNames = names.filter((n) => !n.startsWith('.') && formatOf(n) !== null).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const files: SourceFile[] = [];
  for (const name of dataNames) {
    const p = join(abs, name);
    const fst = await stat(p);
    if (!fst.isFile()) continue;
    files.push(check({ path: p, name, format: formatOf(name)!, size: fst.size, mtimeMs: fst.mtimeMs }));
  }
  if (files.length === 0) throw dataError(`directory ${abs} holds no .parquet or .csv file (found ${names.length} entries); put one data file per shard in it`);
  if (files.length > MAX_SHARDS) throw dataError(`directory ${abs} holds ${files.length} data files, more than ${MAX_SHARDS} shards; merge some files`);
  return { kind: 'dir', files };
}

function checkOptions(opts: PrepareOptions): void {
  if (!Number.isInteger(opts.shards) || opts.shards < 1 || opts.shards > MAX_SHARDS) {
    throw dataError(`shards is ${opts.shards}; give an integer from 1 to ${MAX_SHARDS}`);
  }
  if (typeof opts.table !== 'string' || opts.table === '') throw dataError('table name is empty; give the table a name');
  const kind = (opts.partition as { kind?: unknown } | null)?.kind;
  if (kind !== 'hash' && kind !== 'range' && kind !== 'file') {
    throw dataError(`partition kind is ${JSON.stringify(kind)}; give {kind:'hash'}, {kind:'range', column} or {kind:'file'}`);
  }
}

async function loadFile(f: SourceFile): Promise<Loaded & { untyped?: readonly boolean[] }> {
  return f.format === 'parquet' ? loadParquet(f.path) : loadCsv(f.path);
}

/** Shard file name of shard `id`. */
export function shardFileName(id: number): string {
  return `shard-${String(id).padStart(5, '0')}.arrow`;
}

interface CacheManifest {
  readonly format: number;
  readonly key: string;
  readonly files: readonly string[];
  readonly catalog: unknown;
}

/** The reused preparation in `dir`, or null when it is missing or incomplete. */
async function tryReuse(dir: string, key: string): Promise<PreparedShards | null> {
  let manifest: CacheManifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, 'catalog.json'), 'utf8')) as CacheManifest;
  } catch {
    return null;
  }
  if (manifest.format !== FORMAT_VERSION || manifest.key !== key || !Array.isArray(manifest.files)) return null;
  const catalog = catalogFromJSON(manifest.catalog);
  if (catalog === null || catalog.shards.length !== manifest.files.length) return null;
  const files = manifest.files.map((f) => join(dir, f));
  try {
    await Promise.all(files.map((f) => stat(f)));
  } catch {
    return null;
  }
  return { catalog, files, dir, cached: true };
}

/**
 * Loads a data source, splits it into shards, and writes one Arrow IPC file per shard
 * (`shard-00017.arrow`, following the shard contract: see `readShard`) plus `catalog.json`
 * into `cacheDir/<key>/`. The key hashes the absolute source path(s), their sizes and
 * mtimes, the shard count, the partitioning, the table name and {@link FORMAT_VERSION}; when
 * that folder exists and is complete it is reused without reading the source. Folders
 * are written to a temporary name and renamed, so a crash leaves no half-written cache.
 *
 * - A single file becomes `shards` shards: `{kind:'hash'}` puts a row in bucket
 *   `hashBucket(types, row, shards)` (rows keep source order within a shard);
 *   `{kind:'range', column}` sorts rows by the column (NULLs first; ties in source order)
 *   and cuts them into `shards` contiguous runs whose sizes differ by at most one;
 *   `{kind:'file'}` makes a single shard.
 * - A directory: each `.parquet`/`.csv` file (dot-files skipped) is one shard, in file
 *   name order (UTF-16 code units); `shards` and `partition` are ignored and the catalog
 *   says `{kind:'file'}`. The files must share one schema (a CSV column with no value at
 *   all takes the type the other files give it).
 *
 * Catalog stats per shard and column: min, max (null when the shard has no non-null
 * value), nullCount; int64 bounds rounded outward beyond 2^53; timestamps in UTC ms.
 *
 * @returns the catalog, the absolute shard file paths (index = shard id), the folder, and
 *   whether the cache was reused.
 * @throws CanopyError CANOPY_ERR_DATA for a bad path, an unreadable or empty file, a
 *   directory without data files, shards outside 1..10,000, an unknown range column, an
 *   unsupported column type, a ragged CSV row, or files with different schemas.
 */
async function contentHash(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

export async function prepareShards(opts: PrepareOptions): Promise<PreparedShards> {
  checkOptions(opts);
  const source = await describeSource(opts.path);
  const partition: PartitionSpec = source.kind === 'dir' ? { kind: 'file' } : opts.partition.kind === 'range' ? { kind: 'range', column: opts.partition.column } : { kind: opts.partition.kind };
  const n = source.kind === 'dir' ? source.files.length : partition.kind === 'file' ? 1 : opts.shards;
  const identity = {
    format: FORMAT_VERSION,
    table: opts.table,
    source: source.kind,
    // A content hash, not just size and mtime: an edit that keeps both (cp -p, rsync, tar)
    // must not reuse stale shards. Hashing reads each file once (~40 ms for the 13 MB default).
    files: await Promise.all(source.files.map(async (f) => [f.path, f.size, await contentHash(f.path)])),
    shards: n,
    partition,
  };
  const key = createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 32);
  const cacheDir = resolve(opts.cacheDir);
  const dir = join(cacheDir, key);
  const reused = await tryReuse(dir, key);
  if (reused !== null) return reused;
  // A folder that exists but is not reusable was damaged after it was written: replace it.
  await rm(dir, { recursive: true, force: true });

  try {
    await mkdir(cacheDir, { recursive: true });
  } catch (e) {
    throw dataError(`cache folder ${cacheDir} cannot be created (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); give a writable cacheDir`, e);
  }
  const tmp = join(cacheDir, `.tmp-${key}-${process.pid}-${randomBytes(4).toString('hex')}`);
  await mkdir(tmp);
  try {
    const catalog =
      source.kind === 'dir'
        ? await writeDirectoryShards(opts.table, source.files, tmp)
        : await writeFileShards(opts.table, source.files[0]!, partition, n, tmp);
    const files = catalog.shards.map((s) => shardFileName(s.id));
    const manifest: CacheManifest = { format: FORMAT_VERSION, key, files, catalog: catalogToJSON(catalog) };
    await writeFile(join(tmp, 'catalog.json'), JSON.stringify(manifest));
    try {
      await rename(tmp, dir);
    } catch (e) {
      // Another process finished the same preparation first: use theirs.
      const theirs = await tryReuse(dir, key);
      if (theirs === null) throw dataError(`cannot move prepared shards into ${dir} (${(e as Error).message}); remove that folder and retry`, e);
      await rm(tmp, { recursive: true, force: true });
      return theirs;
    }
    return { catalog, files: files.map((f) => join(dir, f)), dir, cached: false };
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    throw e;
  }
}

interface ShardEntry {
  rows: number;
  partition: string;
  columns: Record<string, ColumnStats>;
}

async function writeShard(table: Table, schema: TableSchema, dir: string, id: number): Promise<Record<string, ColumnStats>> {
  const stats = shardStats(
    schema.columns.map((c) => c.type),
    schema.columns.map((c) => c.name),
    table,
  );
  await writeFile(join(dir, shardFileName(id)), tableToIPC(table, 'file'));
  return stats;
}

async function writeFileShards(tableName: string, file: SourceFile, partition: PartitionSpec, n: number, dir: string): Promise<Catalog> {
  const loaded = await loadFile(file);
  const schema: TableSchema = { name: tableName, columns: loaded.names.map((name, i) => ({ name, type: loaded.types[i]! })) };
  const arrowSchema = arrowSchemaOf(schema);
  let groups: Groups;
  if (partition.kind === 'range') {
    const c = loaded.names.indexOf(partition.column);
    if (c < 0) throw dataError(`range partitioning: ${unknownNameMessage('column', partition.column, loaded.names)} (in ${file.path})`);
    groups = rangeGroups(loaded.cols[c]!, loaded.length, n);
  } else if (partition.kind === 'hash') {
    groups = hashGroups(loaded.cols, loaded.length, n);
  } else {
    const order = new Uint32Array(loaded.length);
    for (let i = 0; i < order.length; i++) order[i] = i;
    groups = { order, offsets: Uint32Array.of(0, loaded.length) };
  }
  const entries: ShardEntry[] = [];
  for (let id = 0; id < n; id++) {
    const start = groups.offsets[id]!;
    const end = groups.offsets[id + 1]!;
    const cols = loaded.cols.map((col) => gather(col, groups.order, start, end));
    const table = encodeShard(arrowSchema, cols, end - start);
    const columns = await writeShard(table, schema, dir, id);
    entries.push({ rows: end - start, columns, partition: describePartition(partition, id, n, schema, end - start, columns, `file ${file.name}`) });
  }
  return buildCatalog(schema, partition, entries);
}

function typeList(l: { names: readonly string[]; types: readonly StoredType[] }): string {
  return l.names.map((n, i) => `${n} ${l.types[i]}`).join(', ');
}

/** The first schema difference between two loaded files, or null when they agree. */
function schemaDifference(a: Loaded & { untyped?: readonly boolean[] }, b: Loaded & { untyped?: readonly boolean[] }): string | null {
  if (a.names.length !== b.names.length) return `${a.names.length} columns (${typeList(a)}) vs ${b.names.length} columns (${typeList(b)})`;
  for (let i = 0; i < a.names.length; i++) {
    if (a.names[i] !== b.names[i]) return `column ${i + 1} is named '${a.names[i]}' vs '${b.names[i]}'`;
    if (a.types[i] !== b.types[i] && a.untyped?.[i] !== true && b.untyped?.[i] !== true) {
      return `column '${a.names[i]}' is ${a.types[i]} vs ${b.types[i]}`;
    }
  }
  return null;
}

async function writeDirectoryShards(tableName: string, files: readonly SourceFile[], dir: string): Promise<Catalog> {
  // All files are loaded before any is written: a CSV column without values takes its
  // type from the other files, which needs every file's schema first.
  const loaded: (Loaded & { untyped?: readonly boolean[] })[] = [];
  for (const f of files) {
    const l = await loadFile(f);
    const first = loaded[0];
    if (first !== undefined) {
      const diff = schemaDifference(first, l);
      if (diff !== null) {
        throw dataError(`files ${files[0]!.name} and ${f.name} in ${dirname(files[0]!.path)} have different schemas: ${diff}; every file of a directory must have the same columns and types`);
      }
    }
    loaded.push(l);
  }
  const first = loaded[0]!;
  const types = first.types.map((t, i) => loaded.find((l) => l.untyped?.[i] !== true)?.types[i] ?? t);
  // Two typed files can still disagree through an untyped first file: check against the unified types.
  for (const [k, l] of loaded.entries()) {
    for (let i = 0; i < types.length; i++) {
      if (l.untyped?.[i] !== true && l.types[i] !== types[i]) {
        const j = loaded.findIndex((o) => o.untyped?.[i] !== true);
        throw dataError(`files ${files[j]!.name} and ${files[k]!.name} have different schemas: column '${first.names[i]}' is ${types[i]} vs ${l.types[i]}; every file of a directory must have the same columns and types`);
      }
    }
  }
  const schema: TableSchema = { name: tableName, columns: first.names.map((name, i) => ({ name, type: types[i]! })) };
  const arrowSchema = arrowSchemaOf(schema);
  const entries: ShardEntry[] = [];
  const partition: PartitionSpec = { kind: 'file' };
  for (const [id, l] of loaded.entries()) {
    const cols = l.cols.map((col, i) => (col.type === types[i] ? col : nullColumn(types[i]!, l.length)));
    const table = encodeShard(arrowSchema, cols, l.length);
    const columns = await writeShard(table, schema, dir, id);
    entries.push({ rows: l.length, columns, partition: describePartition(partition, id, files.length, schema, l.length, columns, `file ${files[id]!.name}`) });
    loaded[id] = { names: [], types: [], length: 0, cols: [] };
  }
  return buildCatalog(schema, partition, entries);
}

/**
 * Reads one shard file (Arrow IPC file format) and checks that it follows the shard
 * contract: fields in catalog order, int64 -> Int64, float64 -> Float64, timestamp ->
 * Float64 (UTC ms) with field metadata `{"canopy.type":"timestamp"}`, string ->
 * `Dictionary<Utf8, Int32>` with one dictionary per shard shared by all its batches,
 * sorted by UTF-16 code units without duplicates; NULLs in validity bitmaps; at least one
 * batch, each of at most MAX_BATCH_ROWS (8,192) rows.
 * @returns the table (its buffers view the file's bytes)
 * @throws CanopyError CANOPY_ERR_DATA when the file cannot be read or breaks the contract.
 */
export function readShard(file: string): Table {
  let table: Table;
  try {
    table = tableFromIPC(readFileSync(file));
  } catch (e) {
    throw dataError(`could not read shard file ${file}: ${(e as Error).message}; prepare the shards again (delete the cache folder)`, e);
  }
  validateShard(table, `shard file ${file}`);
  return table;
}
