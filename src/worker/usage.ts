/**
 * The Worker's own metering, for the benches (docs/capacity.md): with the variable `USAGE_LOG` set
 * to "1", requests and queue batches run on an environment whose D1 binding counts its statements
 * (db/metered-d1.ts), whose Durable Object stubs count their calls (each RPC call is one billed
 * Durable Object request) and whose queue counts the messages sent; after each request and each
 * batch a `worker.usage` log line gives the isolate's totals so far. Without the variable nothing
 * changes (the environment is handed through as it is).
 *
 * The totals are the isolate's, not the request's (requests interleave): a reader takes the
 * difference between two lines around the work it measures, done one request at a time.
 */
import { emptyD1Usage, meteredD1 } from "./db/metered-d1";
import { createLogger } from "./log";

type Totals = {
  requests: number;
  queueBatches: number;
  queueMessagesReceived: number;
  queueMessagesSent: number;
  /** RPC calls on Durable Object stubs, by binding. */
  doCalls: Record<string, number>;
  d1: ReturnType<typeof emptyD1Usage>;
};

const totals: Totals = { requests: 0, queueBatches: 0, queueMessagesReceived: 0, queueMessagesSent: 0, doCalls: {}, d1: emptyD1Usage() };
const metered = new WeakMap<object, Env>();
const meteredEnvs = new WeakSet<object>();
const log = createLogger({ task: "usage" });

/** A stub whose method calls are counted under `binding`. */
function countedStub<T extends object>(stub: T, binding: string): T {
  return new Proxy(stub, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        totals.doCalls[binding] = (totals.doCalls[binding] ?? 0) + 1;
        return Reflect.apply(value as (...a: unknown[]) => unknown, target, args);
      };
    },
  });
}

function countedNamespace(ns: DurableObjectNamespace, binding: string): DurableObjectNamespace {
  return new Proxy(ns, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop === "get" || prop === "getByName")
        return (...args: unknown[]) => countedStub(Reflect.apply(value as (...a: unknown[]) => object, target, args), binding);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function countedQueue(queue: Queue): Queue {
  return new Proxy(queue, {
    get(target, prop) {
      if (prop === "send")
        return (...args: Parameters<Queue["send"]>) => {
          totals.queueMessagesSent++;
          return target.send(...args);
        };
      if (prop === "sendBatch")
        return (...args: Parameters<Queue["sendBatch"]>) => {
          totals.queueMessagesSent += [...args[0]].length;
          return target.sendBatch(...args);
        };
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The environment to run on: metered when `USAGE_LOG` is "1" (one metered copy per environment), else `env` itself. */
export function usageEnv(env: Env): Env {
  if ((env as { USAGE_LOG?: string }).USAGE_LOG !== "1") return env;
  let m = metered.get(env);
  if (!m) {
    m = {
      ...env,
      DB: meteredD1(env.DB, totals.d1),
      CAPTURE_SESSION: countedNamespace(env.CAPTURE_SESSION, "CAPTURE_SESSION") as Env["CAPTURE_SESSION"],
      SEND_PACER: countedNamespace(env.SEND_PACER, "SEND_PACER") as Env["SEND_PACER"],
      DISPATCH: countedQueue(env.DISPATCH),
    };
    metered.set(env, m);
    meteredEnvs.add(m);
  }
  return m;
}

/** After a request or a queue batch on a metered environment: the totals so far, as one log line. */
export function logUsage(env: Env, done: { request?: true; batchOf?: number }): void {
  if (!meteredEnvs.has(env)) return;
  if (done.request) totals.requests++;
  if (done.batchOf !== undefined) {
    totals.queueBatches++;
    totals.queueMessagesReceived += done.batchOf;
  }
  const { d1, doCalls, ...rest } = totals;
  log.info("worker.usage", {
    ...rest,
    d1Reads: d1.reads,
    d1Writes: d1.writes,
    d1RowsRead: d1.rowsRead,
    d1RowsWritten: d1.rowsWritten,
    d1UnmeteredReads: d1.unmeteredReads,
    doCalls: { ...doCalls },
  });
}
