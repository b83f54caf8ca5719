/**
 * The delivery platform as the product uses it (docs/engine.md): one interface, shaped after the
 * capacity API public Flex clients call. Flex's adapter (flex-platform.ts) speaks the protocol
 * public clients show; Spark's (http-platform.ts) a modelled one, as nothing public describes
 * Spark's. In development and tests their base URLs point at the fake platform
 * (test/fake-platform), so the same adapters are always what runs.
 *
 * Expected outcomes (a challenge, an offer gone) are results; failures are PlatformError, whose
 * kind says what the caller can do about it.
 */
/**
 * The app's identity on the platform, made once per connected account and sealed with its tokens:
 * the device serial it registered with (Flex) and the instance id its capacity calls carry.
 */
export type PlatformDevice = { serial: string; instanceId: string };

export type PlatformTokens = { accessToken: string; refreshToken: string; accessExpiresAt: number; device?: PlatformDevice };

/** Who the platform says the account is: its customer id, and a name to show (Flex sends no email). */
export type PlatformAccount = { customerId: string; name: string };

export type SignInStep =
  | { kind: "tokens"; tokens: PlatformTokens }
  /** A one-time code was sent to the driver (by the platform); answer it with `answerCode`. */
  | { kind: "code"; session: string; destination: string | null }
  /** The driver must approve the sign-in on another device; ask `checkApproval` until it says so. */
  | { kind: "approval"; session: string };

export type ApprovalStep = { kind: "tokens"; tokens: PlatformTokens } | { kind: "pending" };

/**
 * A station as the platform lists it. Flex gives a name only ("Doral (DMI4)"); the catalogue
 * (station-catalogue.ts) finds its code, city and zone. Spark's modelled API gives them.
 */
export type PlatformStation = { id: string; name: string; group: string | null; timeZone: string | null };

export type PlatformOffer = { id: string; stationId: string; startsAt: number; endsAt: number; payCents: number; expiresAt: number; hidden: boolean };

export type ScheduledBlock = {
  /** The platform's scheduled-assignment id (what a forfeit names); null until it is known. */
  id: string | null;
  offerId: string | null;
  stationId: string;
  startsAt: number;
  endsAt: number;
  payCents: number;
  arrivedAt: number | null;
};

export type AcceptOutcome = { kind: "won"; block: ScheduledBlock } | { kind: "gone" };

export type PlatformErrorKind =
  /** Email, password, code or token refused (Flex: a 403 or invalid_grant): the driver must sign in again. */
  | "refused"
  /** The challenge expired, was denied or used up its tries. */
  | "challenge_over"
  /** Too many requests (Flex: 400 "Rate exceeded", no wait given): wait `retryAfterMs` when known. */
  | "rate_limited"
  /** 5xx, time-out, network: worth trying again later. */
  | "unavailable"
  /** Flex's 307 on an accept: a captcha to be solved by the driver on the platform's side before accepting again. */
  | "captcha"
  /** Flex's 420: the request lacks the signature of an attested device (request-signer.ts); retrying without one will not help. */
  | "signature_required"
  /** The platform refused the request as such (any other 4xx): trying again will not help. */
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

/** What the engine asks of either platform once an account is connected. */
export interface DeliveryPlatform {
  /** New tokens from the refresh token; PlatformError "refused" when the platform will not. */
  refresh(refreshToken: string): Promise<PlatformTokens>;
  stations(accessToken: string): Promise<PlatformStation[]>;
  /** Offers at the chosen stations (Flex also names the account's eligible areas, read once per adapter). */
  offers(accessToken: string, stationIds: string[]): Promise<PlatformOffer[]>;
  /** Won: the block is the offer's station, times and pay; its id comes from the schedule when it is not in the answer. */
  accept(accessToken: string, offer: PlatformOffer): Promise<AcceptOutcome>;
  forfeit(accessToken: string, blockId: string): Promise<void>;
  scheduledBlocks(accessToken: string): Promise<ScheduledBlock[]>;
  checkIn(accessToken: string, blockId: string): Promise<ScheduledBlock>;
  /** Ends the device's registration (disconnecting, erasure); best effort. */
  deregister(accessToken: string): Promise<void>;
}

/** Spark's modelled sign-in: email and password, then a code or an approval. */
export interface ModelledSignIn {
  signIn(email: string, password: string): Promise<SignInStep>;
  answerCode(session: string, code: string): Promise<PlatformTokens>;
  checkApproval(session: string): Promise<ApprovalStep>;
}
