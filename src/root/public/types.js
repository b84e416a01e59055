// @ts-check
/**
 * The shapes the dashboard reads from the root (README: API). JSDoc only: this module exports
 * nothing at run time; the other modules import these types with `import('./types.js')`.
 */

/**
 * A JSON value of an answer: int64 as a number (a decimal string beyond 2^53), float64 as a
 * number ("NaN", "Infinity" as strings), timestamps as ISO-8601 UTC strings, NULL as null.
 * @typedef {string | number | boolean | null} Value
 */

/**
 * @typedef {object} Column
 * @property {string} name
 * @property {string} type `int64`, `int128`, `float64`, `string`, `timestamp`, `bool`
 */

/**
 * What a column is (the root's column roles): a group key, an aggregate (its function and how
 * its cells may be uncertain) or a row query's column.
 * @typedef {{role: 'group_key', key: number}
 *   | {role: 'aggregate', aggregate: string, uncertainty: 'catalog' | 'sketch_estimate' | 'sketch_bound'}
 *   | {role: 'column'}} Role
 */

/**
 * A progressive estimate (optional, #20): a point value with a probabilistic interval, distinct
 * from the guaranteed [lo, hi].
 * @typedef {object} Estimate
 * @property {Value} value
 * @property {Value} lo
 * @property {Value} hi
 * @property {number} confidence in (0, 1)
 */

/**
 * A non-exact cell: `bounded` cells carry a guaranteed [lo, hi] (null: unbounded on that
 * side); `approximate` ones a probabilistic interval (with `confidence`) or none.
 * @typedef {object} Cell
 * @property {'exact' | 'bounded' | 'approximate'} label
 * @property {Value} lo
 * @property {Value} hi
 * @property {number} [stderr]
 * @property {number} [confidence]
 * @property {Estimate} [estimate]
 */

/**
 * @typedef {object} Coverage
 * @property {number} shards
 * @property {number} answered
 * @property {number} failed
 * @property {number} omitted
 * @property {number} pruned
 * @property {number} [pending]
 */

/**
 * @typedef {object} Missing
 * @property {number} shard
 * @property {string} path
 * @property {'failed' | 'omitted' | 'pending'} reason
 * @property {{code: string, message: string} | null} error
 */

/**
 * @typedef {object} Timing
 * @property {string} gather
 * @property {string} child
 * @property {number} shards
 * @property {number} elapsed_ms
 * @property {string} [outcome]
 */

/**
 * @typedef {object} Straggler
 * @property {string} gather
 * @property {string} last_child
 * @property {number} elapsed_ms
 * @property {number} waited_ms
 */

/**
 * The answer (`final: true`) or a progressive snapshot (`final: false`).
 * @typedef {object} Answer
 * @property {Column[]} columns
 * @property {Role[]} [roles]
 * @property {Value[][]} rows
 * @property {'exact' | 'bounded' | 'approximate'} label
 * @property {(Cell | null)[][]} [cells]
 * @property {boolean} rows_complete
 * @property {boolean} final
 * @property {Coverage} coverage
 * @property {Missing[]} missing
 * @property {{elapsed_ms: number, rows_scanned: number, round_trips: number}} stats
 * @property {{timings: Timing[], stragglers: Straggler[]}} [trace]
 */

/**
 * A coded error (`{"error": ...}`), with the HTTP status when the request was refused before streaming.
 * @typedef {object} ApiError
 * @property {string} code
 * @property {string} message
 * @property {{line: number, column: number, offset: number}} [position]
 * @property {{missing?: Missing[], expected?: string[], found?: string | null}} [details]
 * @property {number} [status]
 * @property {string} [retryAfter]
 */

export {};
