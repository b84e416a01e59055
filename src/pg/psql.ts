/** psql's describe queries (placeholder while capturing). */
import type { CatalogContext } from './catalog.ts';
import type { PgResult } from './result.ts';

export function psqlDescribe(_sql: string, _ctx: CatalogContext): PgResult | null {
  return null;
}
