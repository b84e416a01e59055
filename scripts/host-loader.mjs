// The TypeScript loader of host processes run from the sources (`--import ./scripts/host-loader.mjs`,
// as src/cli/local-tree.ts forks them): esbuild strips the types of each .ts module as it is
// loaded (scripts/host-loader-hooks.mjs), with inline source maps for stack traces.
//
// Why not `--import tsx` as elsewhere: tsx compiles with esbuild's keepNames, which wraps every
// function and class in a `__name(fn, "name")` call (an Object.defineProperty) each time it is
// created; the per-request closures of a host then cost about 15% of a leaf host's CPU per
// request (`cost --real`, 4-row shards: 144 -> 124 µs per leaf request, as the compiled build).
// Hosts keep their names without it: nothing is minified or renamed.
import { register } from 'node:module';
import process from 'node:process';

process.setSourceMapsEnabled(true);
register('./host-loader-hooks.mjs', import.meta.url);
