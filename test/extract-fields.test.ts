/**
 * extract / date_part fields against DuckDB over one timestamp a day (at a varying time of day)
 * across canopy's whole timestamp range (|µs| <= 2^53: years 1685 to 2254): every field canopy
 * reads, ISO weeks at year boundaries and leap days included.
 */
import { describe, expect, it } from 'vitest';
import { extractField } from '../src/merge/index.ts';
import type { ExtractField } from '../src/merge/types.ts';
import { EXTRACT_FIELDS } from '../src/root/sql/expressions.ts';
import { useDuckDB } from './helpers/duck.ts';

const duckdb = useDuckDB();

describe('extract fields equal DuckDB', () => {
  it.each(EXTRACT_FIELDS.map((f) => [f]))('date_part(%s)', async (field: ExtractField) => {
    const r = await duckdb().runAndReadAll(
      `SELECT us, date_part('${field}', make_timestamp(us))::DOUBLE AS x FROM (SELECT d * 86400000000 + (d * 7919 * 1000003) % 86400000000 AS us FROM range(-104000, 104000) t(d))`,
    );
    const wrong: string[] = [];
    for (const [us, want] of r.getRows() as [bigint, number][]) {
      const got = extractField(Number(us), field);
      const ok = field === 'epoch' || field === 'julian' ? Math.abs(got - want) <= 1e-9 * Math.abs(want) : got === want;
      if (!ok && wrong.length < 10) wrong.push(`${String(us)}: ${got} want ${want}`);
    }
    expect(wrong).toEqual([]);
  }, 60_000);
});
