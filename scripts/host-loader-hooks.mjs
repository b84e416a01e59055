// Module hooks (Node's module.register API) of scripts/host-loader.mjs: a file: URL ending in
// .ts or .mts is read and its types stripped by esbuild's transform (ESM, Node 20 target, the
// compiler options of tsconfig.json that change emitted code); everything else is Node's own.
import { readFile } from 'node:fs/promises';
import { URL, fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const TS = /\.m?ts$/;
// Only the options that change what esbuild emits (verbatimModuleSyntax keeps imports as written).
const tsconfigRaw = { compilerOptions: { target: 'ES2022', verbatimModuleSyntax: true, useDefineForClassFields: true } };

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !TS.test(new URL(url).pathname)) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const { code } = await transform(await readFile(file, 'utf8'), { loader: 'ts', format: 'esm', target: 'node20', sourcemap: 'inline', sourcefile: file, tsconfigRaw });
  return { format: 'module', source: code, shortCircuit: true };
}
