// @ts-check
/**
 * The schema panel, from `GET /v1/catalog`: each table with its shard count and rows, its
 * columns with type, min, max and null count over all shards; per shard on demand
 * (`GET /v1/catalog/:table/shards`). Clicking a name inserts it into the editor, quoted where
 * SQL does not read it bare (`"unit price"`, `"order"`).
 */
import { fmt, h } from './dom.js';
import { getJSON } from './stream.js';
import { insertAtCaret } from './editor.js';
import { sqlName } from './sql-name.js';

/**
 * Loads and draws the catalog into `box`.
 * @param {HTMLElement} box
 * @param {(e: import('./types.js').ApiError) => void} refused called when the root refuses (401: ask for a token)
 */
export async function renderCatalog(box, refused) {
  box.replaceChildren(h('p', { class: 'muted' }, 'loading the catalog…'));
  const res = await getJSON('/v1/catalog');
  if (!res.ok) {
    box.replaceChildren(h('p', { class: 'muted' }, `${res.error.code}: ${res.error.message}`));
    refused(res.error);
    return;
  }
  /** @type {{name: string, shards: number, rows: number, partitioning: {kind: string, column?: string}, columns: {name: string, type: string, min: any, max: any, null_count: number}[]}[]} */
  const tables = res.body.tables;
  box.replaceChildren(
    ...tables.map((t) => {
      const name = h('button', { type: 'button', class: 'link name', title: 'insert into the query' }, t.name);
      name.addEventListener('click', () => insertAtCaret(sqlName(t.name)));
      const shardsBox = h('div', { class: 'per-shard' });
      const more = h('button', { type: 'button', class: 'small' }, 'per shard');
      more.addEventListener('click', () => void perShard(t.name, shardsBox, more));
      return h(
        'details',
        { class: 'table', open: tables.length <= 3, 'data-table': t.name },
        h(
          'summary',
          {},
          name,
          h('span', { class: 'muted' }, ` ${t.shards.toLocaleString('en-US')} shards · ${t.rows.toLocaleString('en-US')} rows · ${t.partitioning.kind}${t.partitioning.column ? ` on ${t.partitioning.column}` : ''} partitioning`),
        ),
        h(
          'table',
          { class: 'columns' },
          h('thead', {}, h('tr', {}, h('th', {}, 'column'), h('th', {}, 'type'), h('th', {}, 'min'), h('th', {}, 'max'), h('th', {}, 'nulls'))),
          h(
            'tbody',
            {},
            ...t.columns.map((c) => {
              const b = h('button', { type: 'button', class: 'link', title: 'insert into the query' }, c.name);
              b.addEventListener('click', () => insertAtCaret(sqlName(c.name)));
              return h('tr', { 'data-column': c.name }, h('td', {}, b), h('td', { class: 'muted' }, c.type), h('td', {}, fmt(c.min, c.type)), h('td', {}, fmt(c.max, c.type)), h('td', { class: 'num' }, c.null_count.toLocaleString('en-US')));
            }),
          ),
        ),
        more,
        shardsBox,
      );
    }),
  );
}

/**
 * Per-shard statistics of one table, drawn under its columns.
 * @param {string} table
 * @param {HTMLElement} box
 * @param {HTMLElement} button
 */
async function perShard(table, box, button) {
  button.hidden = true;
  box.replaceChildren(h('p', { class: 'muted' }, 'loading…'));
  const res = await getJSON(`/v1/catalog/${encodeURIComponent(table)}/shards`);
  if (!res.ok) {
    box.replaceChildren(h('p', { class: 'muted' }, `${res.error.code}: ${res.error.message}`));
    button.hidden = false;
    return;
  }
  /** @type {{id: number, rows: number, partition: string, columns: {name: string, type: string, min: any, max: any, null_count: number}[]}[]} */
  const shards = res.body.shards;
  const cols = shards[0]?.columns.map((c) => c.name) ?? [];
  box.replaceChildren(
    h(
      'table',
      { class: 'columns shards' },
      h('thead', {}, h('tr', {}, h('th', {}, 'shard'), h('th', {}, 'rows'), ...cols.map((c) => h('th', {}, `${c} min – max (nulls)`)))),
      h(
        'tbody',
        {},
        ...shards.map((s) =>
          h(
            'tr',
            { title: s.partition },
            h('td', {}, String(s.id)),
            h('td', { class: 'num' }, s.rows.toLocaleString('en-US')),
            ...s.columns.map((c) => h('td', {}, `${fmt(c.min, c.type)} – ${fmt(c.max, c.type)}${c.null_count > 0 ? ` (${c.null_count})` : ''}`)),
          ),
        ),
      ),
    ),
  );
}
