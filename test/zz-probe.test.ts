import { afterAll, beforeAll, it } from 'vitest';
import { answerToJSON } from '../src/root/index.ts';
import { closeDifferential, setupDifferential, verdict, SCHEMA, SHARDS } from './helpers/differential.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';
beforeAll(setupDifferential);
afterAll(closeDifferential);
const QS = (process.env.PROBE ?? '').split(';;').filter(Boolean);
it('probe', async () => {
  const root = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 }).root;
  for (const sql of QS) {
    let a: unknown;
    try { a = answerToJSON(await ask(root, sql)); } catch (e) { a = String(e); }
    console.log('@@', sql, '\n  ', JSON.stringify(a, (_k, v) => (typeof v === 'bigint' ? String(v) : v)).slice(0, 1500));
    for (const l of await verdict({ sql })) console.log('   !!', l);
  }
}, 600000);
