/**
 * How the Worker reaches a driver's live dashboard (live-dashboard.ts, in their CaptureSession
 * object): a ticket for a socket, the socket's upgrade, and closing the sockets of a session that
 * ended. Closing is best effort: a sign-out never fails because of it (a socket left open still
 * closes at its session's expiry).
 */
import { createLogger } from "../log";
import { captureSessionOf } from "./capture";
import { TICKET_PATTERN, type TicketRefusal } from "./live-dashboard";

/** A ticket for one socket of the caller's session (its id and expiry), usable once within a minute. */
export function issueLiveTicket(env: Pick<Env, "CAPTURE_SESSION">, userId: number, session: { sessionId: string; expiresAt: number }) {
  return captureSessionOf(env, userId).liveTicket(userId, session);
}

/**
 * The upgrade request of a socket, handed to the object its ticket names: the socket (101), or
 * why the ticket was refused. A ticket that is not ours in form names no object and is refused here.
 */
export async function openLiveSocket(
  env: Pick<Env, "CAPTURE_SESSION">,
  request: Request,
  ticket: string,
): Promise<{ ok: true; webSocket: WebSocket } | { ok: false; reason: TicketRefusal }> {
  const match = TICKET_PATTERN.exec(ticket);
  if (!match) return { ok: false, reason: "ticket_unknown" };
  const answer = await captureSessionOf(env, Number(match[1])).fetch(request);
  if (answer.status === 101 && answer.webSocket) return { ok: true, webSocket: answer.webSocket };
  const { reason } = (await answer.json()) as { reason: TicketRefusal };
  return { ok: false, reason };
}

/**
 * A session ended (a sign-out), or with null every session of the user (but `except`, the caller's
 * own, on a change the caller made): their sockets close. Never throws.
 */
export async function closeLiveSockets(env: Pick<Env, "CAPTURE_SESSION">, userId: number, sessionId: string | null, except?: string): Promise<void> {
  try {
    await captureSessionOf(env, userId).closeLive(userId, sessionId, except);
  } catch (err) {
    createLogger({ task: "live", userId }).warn("live.close_failed", { error: err instanceof Error ? err.message : String(err) });
  }
}
