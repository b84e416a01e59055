/**
 * Test helper: table `t` with one column of each scanned type (group key `g`, int64 `i`,
 * float64 `f`, timestamp `ts`), shared by the merge-law, wire and sketch tests.
 */
import type { TableSchema } from '../../src/merge/index.ts';

/** Table `t`: `g` string, `i` int64, `f` float64, `ts` timestamp. */
export const MIXED_SCHEMA: TableSchema = {
  name: 't',
  columns: [
    { name: 'g', type: 'string' },
    { name: 'i', type: 'int64' },
    { name: 'f', type: 'float64' },
    { name: 'ts', type: 'timestamp' },
  ],
};
