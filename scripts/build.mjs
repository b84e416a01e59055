// `npm run build`: the production build. Compiles src/ with tsc (tsconfig.build.json: the
// .ts import specifiers are rewritten to .js) into a fresh output directory (default dist/),
// and copies what the build needs besides JavaScript: the dashboard's static files.
//   node scripts/build.mjs [OUT_DIR]
import { execFileSync } from 'node:child_process';
import process from 'node:process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const out = process.argv[2] ?? 'dist';
rmSync(out, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', out], { stdio: 'inherit' });
cpSync(join('src', 'root', 'public'), join(out, 'root', 'public'), { recursive: true });
