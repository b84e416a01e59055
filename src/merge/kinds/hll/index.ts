/**
 * COUNT(DISTINCT col) and approx_count_distinct(col): an exact set of values while small,
 * then a HyperLogLog sketch (Flajolet, Fusy, Gandouet, Meunier 2007) with the sparse-then-
 * dense register layout of HyperLogLog++ (Heule, Nunkesser, Hall, "HyperLogLog in
 * Practice", EDBT 2013).
 *
 * - Exact while the set holds at most {@link HLL_EXACT_LIMIT} distinct values; a set that
 *   grows past it is promoted: every value is hashed into registers.
 * - One fixed hash: xxHash64 (seed 0) of a canonical byte encoding of the value: strings as
 *   UTF-8; int64 as 8 bytes little-endian two's complement; float64 and timestamp (ms) as
 *   the 8 little-endian bytes of the IEEE-754 double, with -0 folded to 0 and every NaN to
 *   the quiet NaN 0x7ff8000000000000.
 * - Precision p = {@link HLL_PRECISION}: m = 2^p registers, index = the top p bits of the
 *   hash, register value = 1 + the leading zeros of the remaining 64 - p bits (1..51).
 * - Sparse (sorted (index, value) entries) while at most m/4 registers are non-zero, dense
 *   (one byte per register) beyond; the layout is a function of the registers alone, so
 *   equal sketches have equal encodings.
 * - Estimator: linear counting m·ln(m/V) while it stays at or below HLL++'s threshold for
 *   p = 14 (11,500; Heule et al., Appendix), else Ertl's improved raw estimator (Ertl, "New
 *   cardinality estimation algorithms for HyperLogLog sketches", arXiv:1702.01284, 2017,
 *   Algorithm 6), which corrects the small- and large-range bias without empirical tables.
 *   Relative standard error σ = 1.04/sqrt(m) ≈ 0.81 %.
 *
 * Merge is a union: set ∪ set (promoted past the limit), set into sketch (hash and
 * insert), sketch ∪ sketch (register-wise max). The merged state is a function of the set
 * of distinct values alone, so merge is commutative, associative and idempotent, empty
 * (null) is its identity, and per-shard merging equals one scan. NULL is not a value; the
 * empty string is.
 *
 * One concept per file: xxHash64 (./xxhash.ts), canonical hashing (./hashing.ts), the state
 * and its merge (./state.ts), the estimator (./estimator.ts), the wire codec (./codec.ts) and
 * the kind (./kind.ts).
 */
export { xxh64Bytes, xxh64Word } from './xxhash.ts';
export { canonicalDistinct, hashDistinct, hashDouble, hashInt, hashString } from './hashing.ts';
export { type DistinctValue, HLL_EXACT_LIMIT, HLL_PRECISION, HLL_REGISTERS, HLL_SPARSE_LIMIT, hllEquals, hllFromRegisters, hllFromSet, hllMerge, hllMergeOwned, type HllState, registerAdd } from './state.ts';
export { type DistinctEstimate, HLL_CONFIDENCE, HLL_RELATIVE_STDERR, hllCount, hllEstimate, registersEstimate } from './estimator.ts';
export { hllDecode, hllEncode } from './codec.ts';
export { hllKind } from './kind.ts';
