/**
 * The commands `npm start` prints to try the tree (curl, psql) must run as printed, whatever
 * `--table` names: a name SQL does not read bare (`sales 2024`, `my-table`, a reserved word
 * such as `order`) is written as a quoted identifier, and the SQL is quoted for the shell.
 */
import type { TableSchema } from '../merge/index.ts';
import { planQuery } from '../root/sql/index.ts';

/**
 * `table`'s name as SQL reads it: bare when `SELECT count(*) FROM name` plans against it, else
 * in double quotes (a `"` inside doubled).
 */
export function sqlTableName(table: TableSchema): string {
  const bare = table.name;
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(bare)) {
    try {
      planQuery(`SELECT count(*) FROM ${bare}`, new Map([[bare, table]]));
      return bare;
    } catch {
      // a reserved word: quote it
    }
  }
  return `"${bare.replaceAll('"', '""')}"`;
}

/** `s` as one POSIX shell word in single quotes (a `'` inside written `'\''`). */
export function shellSingleQuoted(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

/** `s` as one POSIX shell word in double quotes (`"`, `\`, `$` and a backquote escaped). */
export function shellDoubleQuoted(s: string): string {
  return `"${s.replace(/["\\$`]/g, (c) => `\\${c}`)}"`;
}
