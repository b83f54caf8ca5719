/**
 * The delivery platform as the product uses it (docs/engine.md): one interface, shaped after the
 * capacity API public Flex clients call. The real implementation speaks HTTP
 * (http-platform.ts); in development and tests its base URL points at the fake platform
 * (test/fake-platform), so the same adapter is always what runs.
 *
 * Expected outcomes (a challenge, an offer gone) are results; failures are PlatformError, whose
 * kind says what the caller can do about it.
 */
export type PlatformTokens = { accessToken: string; refreshToken: string; accessExpiresAt: number };

export type SignInStep =
  | { kind: "tokens"; tokens: PlatformTokens }
  /** A one-time code was sent to the driver (by the platform); answer it with `answerCode`. */
  | { kind: "code"; session: string; destination: string | null }
  /** The driver must approve the sign-in on another device; ask `checkApproval` until it says so. */
  | { kind: "approval"; session: string };

export type ApprovalStep = { kind: "tokens"; tokens: PlatformTokens } | { kind: "pending" };

export type PlatformStation = { id: string; name: string; region: string; timeZone: string };

export type PlatformOffer = { id: string; stationId: string; startsAt: number; endsAt: number; payCents: number; expiresAt: number; hidden: boolean };

export type ScheduledBlock = {
  id: string;
  offerId: string | null;
  stationId: string;
  startsAt: number;
  endsAt: number;
  payCents: number;
  arrivedAt: number | null;
};

export type AcceptOutcome = { kind: "won"; block: ScheduledBlock } | { kind: "gone" };

export type PlatformErrorKind =
  /** Email, password, code or token refused: the driver must sign in again. */
  | "refused"
  /** The challenge expired, was denied or used up its tries. */
  | "challenge_over"
  /** Too many requests: wait `retryAfterMs`. */
  | "rate_limited"
  /** 5xx, time-out, network: worth trying again later. */
  | "unavailable"
  /** The platform refused the request as such (4xx): trying again will not help. */
  | "rejected";

export class PlatformError extends Error {
  constructor(
    readonly kind: PlatformErrorKind,
    message: string,
    readonly retryAfterMs?: number,
    readonly status?: number,
  ) {
    super(message);
    this.name = "PlatformError";
  }
}

export interface DeliveryPlatform {
  signIn(email: string, password: string): Promise<SignInStep>;
  answerCode(session: string, code: string): Promise<PlatformTokens>;
  checkApproval(session: string): Promise<ApprovalStep>;
  /** New tokens from the refresh token; PlatformError "refused" when the platform will not. */
  refresh(refreshToken: string): Promise<PlatformTokens>;
  stations(accessToken: string): Promise<PlatformStation[]>;
  offers(accessToken: string, stationIds: string[]): Promise<PlatformOffer[]>;
  accept(accessToken: string, offerId: string): Promise<AcceptOutcome>;
  forfeit(accessToken: string, blockId: string): Promise<void>;
  scheduledBlocks(accessToken: string): Promise<ScheduledBlock[]>;
  checkIn(accessToken: string, blockId: string): Promise<ScheduledBlock>;
}
