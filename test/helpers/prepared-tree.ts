/**
 * Test helpers: a whole canopy tree in this process over shards prepared on disk by
 * `prepareShards` (the same files a local HTTP tree serves), for differential tests that
 * must tell planning and merging apart from the HTTP transport.
 */
import { prepareShards, readShard, type PrepareOptions } from '../../src/data/index.ts';
import { createLeaf, prepareShard } from '../../src/leaf/index.ts';
import type { Catalog } from '../../src/merge/index.ts';
import { answerToJSON, buildTree, type Root, type TreeNode } from '../../src/root/index.ts';
import type { DuckDBConnection } from '@duckdb/node-api';
import { diffResults, fromCanopy, fromDuck, type CanopyBody, type CmpResult } from './compare.ts';
import { ask } from './tree.ts';

/** An in-process tree over prepared shards. */
export interface PreparedTree {
  readonly root: Root;
  readonly catalog: Catalog;
  readonly layout: TreeNode[];
}

/**
 * Prepares (or reuses) the shards and builds an in-process tree over them: one leaf per
 * shard, aggregators of width at most `fanout`, the root on top.
 */
export async function preparedInProcessTree(opts: PrepareOptions & { readonly fanout: number }): Promise<PreparedTree> {
  const prepared = await prepareShards(opts);
  const schema = prepared.catalog.table;
  const { root, layout } = buildTree({
    table: schema.name,
    catalog: prepared.catalog,
    fanout: opts.fanout,
    leaf: (node) => {
      const id = node.shards[0]!;
      return createLeaf(node.name, [prepareShard(id, readShard(prepared.files[id]!), schema)]).handler;
    },
  });
  return { root, catalog: prepared.catalog, layout };
}

/** NaN as the text 'NaN' (the unordered comparison's sort key renders NaN and NULL alike, as JSON null). */
export function nanAsText(r: CmpResult): CmpResult {
  return { ...r, rows: r.rows.map((row) => row.map((v) => (typeof v === 'number' && Number.isNaN(v) ? 'NaN' : v))) };
}

/** `sql` without its parenthesised parts (an ORDER BY inside an aggregate orders no rows). */
export function topLevel(sql: string): string {
  let s = sql;
  for (let prev = ''; prev !== s; ) {
    prev = s;
    s = s.replace(/\([^()]*\)/g, '');
  }
  return s;
}

/**
 * Differences between the tree's answers to `queries` (written `FROM t`) and DuckDB's over
 * `from` (` FROM t` replaced by ` FROM <from> AS t`), one text per query that differs: a canopy
 * refusal, a DuckDB refusal, a label other than exact, or differing rows (in order when the
 * query has a top-level ORDER BY). NaN compares as a value.
 */
export async function diffsFromDuckDB(t: PreparedTree, duck: DuckDBConnection, from: string, queries: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const sql of queries) {
    let body: CanopyBody;
    try {
      body = JSON.parse(JSON.stringify(answerToJSON(await ask(t.root, sql)))) as CanopyBody;
    } catch (e) {
      out.push(`${sql}\n    canopy refused: ${(e as { code?: string }).code ?? ''} ${(e as Error).message}`);
      continue;
    }
    let want: CmpResult;
    try {
      want = nanAsText(fromDuck(await duck.runAndReadAll(sql.replaceAll(' FROM t', ` FROM ${from} AS t`))));
    } catch (e) {
      out.push(`${sql}\n    DuckDB refused: ${(e as Error).message}; canopy answered ${JSON.stringify(body.rows).slice(0, 200)}`);
      continue;
    }
    if (body.label !== 'exact') out.push(`${sql}\n    label ${body.label}`);
    let d: string[];
    try {
      d = diffResults(nanAsText(fromCanopy(body)), want, { ordered: /ORDER BY/.test(topLevel(sql)) });
    } catch (e) {
      d = [`uncomparable: ${(e as Error).message}`];
    }
    if (d.length > 0) out.push(`${sql}\n    ${d.join('\n    ')}`);
  }
  return out;
}
