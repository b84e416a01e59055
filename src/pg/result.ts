/** What one statement produces over the wire, before encoding. */
import type { Scalar } from '../merge/index.ts';
import type { QueryAnswer } from '../root/index.ts';
import type { NoticeFields } from './wire.ts';

/** A result column: its name and canopy type (int64, float64, string, timestamp, bool, int128). */
export interface PgColumn {
  readonly name: string;
  readonly type: string;
}

/** The outcome of one statement. */
export interface PgResult {
  /** Columns of the rows; null for a statement that returns none (SET, BEGIN). */
  readonly columns: readonly PgColumn[] | null;
  readonly rows: readonly (readonly Scalar[])[];
  /** CommandComplete tag, e.g. `SELECT 3`, `SET`. */
  readonly tag: string;
  /** Notices to send before the rows (labels of a non-exact answer). */
  readonly notices: readonly NoticeFields[];
  /** The engine's answer, for `SHOW canopy.last_answer`. */
  readonly answer?: QueryAnswer;
}

/** A result with rows, tagged `SELECT n`. */
export function rowsResult(columns: readonly PgColumn[], rows: readonly (readonly Scalar[])[], notices: readonly NoticeFields[] = []): PgResult {
  return { columns, rows, tag: `SELECT ${rows.length}`, notices };
}

/** A result without rows (SET, BEGIN, ...). */
export function commandResult(tag: string): PgResult {
  return { columns: null, rows: [], tag, notices: [] };
}
