/**
 * Simulated transport, for benchmarks at 100 to 10,000 leaves: links that delay requests and
 * answers by a network latency and charge the receiving node's CPU for every frame it takes
 * in (a serial resource, so merges queue), and leaves that answer after a drawn latency with
 * a synthetic partial, without scanning; all on a {@link VirtualClock} (./clock.ts).
 *
 * The gather, aggregator, root, admission and tail-control code is the real one: it reads
 * time and arms its deadline, hedge and snapshot timers through the Clock it is given (pass
 * the VirtualClock); no global is patched. Nothing here sleeps in real time; a query over
 * 10,000 leaves takes as long as the real code needs to merge their frames, not as long as
 * their latencies say.
 */
import { CanopyError, type Frame, type Partial, type ShardStatus } from '../merge/index.ts';
import type { Child, ChildRequest } from '../transport/index.ts';
import type { VirtualClock } from './clock.ts';

/** A serial CPU of one simulated node: work queues behind earlier work. */
export class SimCpu {
  #free = 0;
  /** Total CPU time charged, ms. */
  busyMs = 0;
  /** Frames taken in. */
  frames = 0;
  /** Bytes taken in. */
  bytes = 0;
  /** Groups taken in (nominal, see {@link FrameCost}). */
  groups = 0;

  constructor(readonly name: string) {}

  /** Forgets queued work and zeroes the counters (between independent simulated queries). */
  reset(): void {
    this.#free = 0;
    this.busyMs = this.frames = this.bytes = this.groups = 0;
  }

  /** Charges `ms` of work arriving at `at`; returns when it is done. */
  charge(at: number, ms: number): number {
    const end = Math.max(this.#free, at) + ms;
    this.#free = end;
    this.busyMs += ms;
    return end;
  }
}

/** What taking in one frame costs its receiver. */
export interface FrameCost {
  /** CPU of the receiver, ms (decode + merge). */
  readonly cpuMs: number;
  /** Bytes on the wire (for the report only). */
  readonly bytes: number;
  /** Groups the frame stands for (for the report only). */
  readonly groups: number;
  /** CPU of the sender (encode), ms; charged to {@link SimLinkOptions.sender} before the frame leaves. */
  readonly senderMs?: number;
}

/** A link between a parent and a child in the simulator. */
export interface SimLinkOptions {
  /** One-way network latency, ms (the same both ways, fixed: so answers reach the parent in the order they leave). */
  readonly oneWayMs: number;
  /** The receiving (parent) node's CPU. */
  readonly receiver: SimCpu;
  /** The sending (child) node's CPU, when its encode is not already in its latency (aggregators). */
  readonly sender?: SimCpu;
  /** Cost of one frame at the receiver. */
  readonly cost: (frame: Frame) => FrameCost;
  /**
   * CPU of the parent to send the request (HTTP request build and write), ms; charged to
   * {@link receiver} when the child is asked, so a parent asking many children sends their
   * requests one after another. Default 0.
   */
  readonly requestCpuMs?: number;
}

/**
 * Wraps `child` in a simulated network link: the request leaves once the parent's CPU has
 * sent it (`requestCpuMs`, FIFO behind earlier work; default 0) and reaches the child
 * `oneWayMs` later (carrying the same remaining budget, as the budget header does: the
 * child's clock starts on receipt); every frame is encoded on the sender's CPU (when given),
 * then reaches the parent `oneWayMs` after it was yielded and is handed over once the
 * parent's CPU has decoded and merged it (FIFO behind earlier frames).
 * Every wait stops when the signal aborts.
 */
export function simulatedLink(clock: VirtualClock, child: Child, opts: SimLinkOptions): Child {
  return {
    name: child.name,
    shards: child.shards,
    async *query(req: ChildRequest, signal: AbortSignal): AsyncIterable<Frame> {
      const sent = opts.requestCpuMs !== undefined && opts.requestCpuMs > 0 ? opts.receiver.charge(clock.now(), opts.requestCpuMs) : clock.now();
      if (sent + opts.oneWayMs > clock.now()) await clock.sleep(sent + opts.oneWayMs - clock.now(), signal);
      for await (const f of child.query(req, signal)) {
        const c = opts.cost(f);
        if (opts.sender !== undefined && c.senderMs !== undefined && c.senderMs > 0) {
          const sent = opts.sender.charge(clock.now(), c.senderMs);
          await clock.sleep(sent - clock.now(), signal);
        }
        const arrive = clock.now() + opts.oneWayMs;
        const done = opts.receiver.charge(arrive, c.cpuMs);
        opts.receiver.frames++;
        opts.receiver.bytes += c.bytes;
        opts.receiver.groups += c.groups;
        if (done > clock.now()) await clock.sleep(done - clock.now(), signal);
        yield f;
      }
    },
  };
}

/** A simulated leaf's behaviour. */
export interface SimLeafOptions {
  /** Service time of one request, ms (drawn per request). */
  readonly latency: (req: ChildRequest) => number;
  /** The partial it answers with (synthetic: nothing is scanned). */
  readonly partial: (req: ChildRequest) => Partial;
  /** Rows it claims to have scanned per shard. */
  readonly rowsPerShard: number;
  /** Called with each drawn latency (instrumentation). */
  readonly onDraw?: (ms: number, req: ChildRequest) => void;
  /**
   * The process hosting this leaf, shared with other leaves (a serial CPU): after its latency
   * the leaf's scan costs `cpuMs(req)` ms of it, queued FIFO behind the scans of the other
   * leaves of that host. Absent: the latency is the whole service time.
   */
  readonly host?: { readonly cpu: SimCpu; readonly cpuMs: (req: ChildRequest) => number };
}

/**
 * A simulated leaf: waits its drawn latency in virtual time (cancellable; like the fault
 * layer's injected delay, it holds no CPU), then, when it has a host, queues its scan on the
 * host's CPU, then answers every shard it was asked for with one frame. Aborted: rejects
 * with the signal's reason, like a real leaf that stops scanning (a scan already queued keeps
 * its place: the model does not take it back).
 */
export function simulatedLeaf(clock: VirtualClock, name: string, shards: readonly number[], opts: SimLeafOptions): Child {
  return {
    name,
    shards,
    async *query(req: ChildRequest, signal: AbortSignal): AsyncIterable<Frame> {
      const ms = opts.latency(req);
      opts.onDraw?.(ms, req);
      await clock.sleep(ms, signal);
      if (opts.host !== undefined && !signal.aborted) {
        const done = opts.host.cpu.charge(clock.now(), opts.host.cpuMs(req));
        if (done > clock.now()) await clock.sleep(done - clock.now(), signal);
      }
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new CanopyError('CANOPY_ERR_CANCELLED', 'cancelled');
      const provenance: ShardStatus[] = req.shards.map((shard) => ({ shard, status: 'answered', path: name, rowsScanned: opts.rowsPerShard }));
      yield { partial: opts.partial(req), provenance, rowsScanned: opts.rowsPerShard * req.shards.length };
    },
  };
}
