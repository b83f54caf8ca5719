/**
 * How the Worker reads a driver's offer history (history-reads.ts): the dashboard's offers page,
 * one offer, the calendar's blocks, the offers seen since a time (the export), the insights and
 * the what-if. Only the history's calls of the CaptureSession object: nothing here drives the
 * engine (engine-client.ts does).
 */
import { captureSessionOf } from "./capture";
import type { CaptureSessionObject } from "./capture-session";

type HistoryCall = "offersPage" | "offer" | "blocksStarting" | "offersSeenSince" | "insights" | "whatIf";

export type HistoryClient = Pick<DurableObjectStub<CaptureSessionObject>, HistoryCall>;

/** The driver's history: each read is one round trip to their object, where the rows stay. */
export function historyOf(env: Pick<Env, "CAPTURE_SESSION">, userId: number): HistoryClient {
  return captureSessionOf(env, userId);
}
