/**
 * FrameSplitter (src/merge/wire.ts): length-prefixed frames cut out of arbitrarily chunked
 * bytes come out whole, in order and byte for byte, whatever the chunk boundaries; a prefix
 * claiming more than the limit is CANOPY_ERR_CHILD_GARBLED; `pending` counts the bytes of an
 * unfinished frame, its prefix included. aligned8 moves a small misaligned frame to an aligned
 * offset, byte for byte.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameSplitter, aligned8, isCanopyError, lengthPrefixed } from '../src/merge/index.ts';

/** `bytes` cut at the given (sorted, deduplicated) offsets. */
function cut(bytes: Uint8Array, at: readonly number[]): Uint8Array[] {
  const points = [...new Set(at.map((a) => a % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of [...points, bytes.length]) {
    out.push(bytes.slice(prev, p));
    prev = p;
  }
  return out;
}

describe('FrameSplitter', () => {
  it('with alignAt, a frame joined from several chunks has that byte 8-aligned, and every frame is the same bytes', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ minLength: 8, maxLength: 300 }), { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 60 }), fc.integer({ min: 0, max: 9 }), (frames, at, alignAt) => {
        const stream = new Uint8Array(frames.reduce((n, f) => n + 4 + f.length, 0));
        let o = 0;
        for (const f of frames) {
          stream.set(lengthPrefixed(f), o);
          o += 4 + f.length;
        }
        const chunks = cut(stream, at);
        const splitter = new FrameSplitter(1000, alignAt);
        const got: Uint8Array[] = [];
        for (const chunk of chunks) got.push(...splitter.push(chunk));
        expect(got.map((g) => [...g])).toEqual(frames.map((f) => [...f]));
        // A frame whose bytes span a chunk boundary was joined: its byte alignAt is 8-aligned.
        const bounds: number[] = [];
        let end = 0;
        for (const c of chunks) bounds.push((end += c.length));
        let start = 0;
        frames.forEach((f, i) => {
          const from = start + 4;
          const to = from + f.length;
          start = to;
          if (bounds.some((b) => b > from && b < to)) expect((got[i]!.byteOffset + alignAt) % 8).toBe(0);
        });
      }),
      { numRuns: 300, seed: 15 },
    );
  });

  it('any chunking of any frames gives back the same frames, and nothing pending at the end', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        (frames, at) => {
          const stream = new Uint8Array(frames.reduce((n, f) => n + 4 + f.length, 0));
          let o = 0;
          for (const f of frames) {
            stream.set(lengthPrefixed(f), o);
            o += 4 + f.length;
          }
          const splitter = new FrameSplitter(1000);
          const got: Uint8Array[] = [];
          for (const chunk of cut(stream, at)) got.push(...splitter.push(chunk));
          expect(got.map((g) => [...g])).toEqual(frames.map((f) => [...f]));
          expect(splitter.pending).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('counts an unfinished frame as pending, prefix included', () => {
    const splitter = new FrameSplitter(100);
    const framed = lengthPrefixed(new Uint8Array([1, 2, 3, 4, 5]));
    expect(splitter.push(framed.subarray(0, 2))).toEqual([]);
    expect(splitter.pending).toBe(2);
    expect(splitter.push(framed.subarray(2, 6))).toEqual([]);
    expect(splitter.pending).toBe(6);
    expect(splitter.push(framed.subarray(6)).map((f) => [...f])).toEqual([[1, 2, 3, 4, 5]]);
    expect(splitter.pending).toBe(0);
  });

  it('a prefix over the limit is a garbled child, even before its bytes arrive', () => {
    const splitter = new FrameSplitter(10);
    const head = new Uint8Array(4);
    new DataView(head.buffer).setUint32(0, 11, false);
    try {
      splitter.push(head);
      expect.unreachable('the oversized prefix was accepted');
    } catch (e) {
      expect(isCanopyError(e) && e.code).toBe('CANOPY_ERR_CHILD_GARBLED');
    }
  });
});

describe('FrameSplitter and the memory of its input', () => {
  it('frames stay intact when the producer reuses a chunk after push (as undici does with body chunks)', () => {
    const splitter = new FrameSplitter(100);
    const pool = new Uint8Array(64);
    pool.set(lengthPrefixed(new Uint8Array([7, 8, 9])), 0);
    pool.set(lengthPrefixed(new Uint8Array([1, 2])).subarray(0, 5), 7);
    const first = splitter.push(pool.subarray(0, 12));
    pool.fill(0xff);
    pool.set([2], 0);
    const second = splitter.push(pool.subarray(0, 1));
    expect(first.map((f) => [...f])).toEqual([[7, 8, 9]]);
    expect(second.map((f) => [...f])).toEqual([[1, 2]]);
  });
});

describe('aligned8', () => {
  it('gives a small frame the same bytes at an 8-byte aligned offset, and a large or aligned one as it is', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat({ max: 15 }), (bytes, off) => {
        const backing = new Uint8Array(off + bytes.length);
        backing.set(bytes, off);
        const view = backing.subarray(off);
        const out = aligned8(view);
        expect([...out]).toEqual([...bytes]);
        expect(out.byteOffset % 8).toBe(0);
        if (off % 8 === 0) expect(out).toBe(view);
      }),
    );
    const large = new Uint8Array(64 * 1024 + 9).subarray(1);
    expect(aligned8(large)).toBe(large);
  });
});
