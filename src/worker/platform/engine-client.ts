/**
 * How the Worker drives a driver's capture engine (capture-engine.ts): on and off, resume, reload,
 * disconnect, the status, the stations, forfeits and check-ins, the platform's holds, erasure.
 * Only the engine's calls of the CaptureSession object; its history is read through history-client.ts.
 */
import { captureSessionOf } from "./capture";
import type { CaptureSessionObject } from "./capture-session";

type EngineCall =
  | "start"
  | "stop"
  | "resume"
  | "reload"
  | "disconnect"
  | "deregisterDevice"
  | "status"
  | "stations"
  | "forfeitBlock"
  | "checkInBlock"
  | "captchaSolved"
  | "clearSignatureHold"
  | "erase";

export type EngineClient = Pick<DurableObjectStub<CaptureSessionObject>, EngineCall>;

/** The driver's engine: each call is one round trip to their object. */
export function engineOf(env: Pick<Env, "CAPTURE_SESSION">, userId: number): EngineClient {
  return captureSessionOf(env, userId);
}
