/**
 * The driver's platform tokens as the engine holds them (docs/engine.md): opened from their sealed
 * copy once, refreshed a few minutes before the access token expires (or at once when the platform
 * refused it), and every refreshed pair sealed back. Only the CaptureSession opens the tokens, so
 * refreshing happens in one place; it decides what a refused or a failed refresh does.
 */
import { type DeliveryPlatform, PlatformError, type PlatformTokens } from "./platform";

const NOT_CONNECTED = "The platform account is not connected";

/** Tokens are refreshed this long before they expire. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

export type TokenAnswer =
  | { kind: "token"; accessToken: string }
  /** No tokens, or the platform refused the refresh token: the connection is over. */
  | { kind: "refused"; why: string }
  /** Could not refresh now and no valid access token is left: try again later. */
  | { kind: "failed"; error: unknown };

export class PlatformTokenHolder {
  private tokens: PlatformTokens | null = null;

  constructor(
    private readonly open: (sealed: string) => Promise<PlatformTokens>,
    private readonly save: (tokens: PlatformTokens, now: number) => Promise<void>,
  ) {}

  /** Drops the tokens held: the next answer opens the sealed copy again. */
  forget(): void {
    this.tokens = null;
  }

  /** The account's instance id, sealed with the tokens (known once they were opened). */
  instanceId(): string | null {
    return this.tokens?.device?.instanceId ?? null;
  }

  /** The tokens held (opened from `sealed` when none are): what deregistering the device needs. */
  async current(sealed: string | null | undefined): Promise<PlatformTokens | null> {
    if (!this.tokens && sealed) this.tokens = await this.open(sealed);
    return this.tokens;
  }

  /** A current access token; `force` refreshes even one far from expiry (the platform refused it). */
  async accessToken(sealed: string | null | undefined, platform: DeliveryPlatform, now: number, force = false): Promise<TokenAnswer> {
    if (!this.tokens) {
      if (!sealed) return { kind: "refused", why: "no tokens" };
      this.tokens = await this.open(sealed);
    }
    if (!force && this.tokens.accessExpiresAt - now > REFRESH_MARGIN_MS) return { kind: "token", accessToken: this.tokens.accessToken };
    try {
      // The device made at connecting stays with the account's tokens.
      const device = this.tokens.device;
      this.tokens = { ...(await platform.refresh(this.tokens.refreshToken)), ...(device ? { device } : {}) };
      await this.save(this.tokens, now);
      return { kind: "token", accessToken: this.tokens.accessToken };
    } catch (error) {
      if (error instanceof PlatformError && error.kind === "refused") return { kind: "refused", why: error.message };
      // Could not refresh now: an access token still valid is used.
      if (this.tokens.accessExpiresAt > now && !force) return { kind: "token", accessToken: this.tokens.accessToken };
      return { kind: "failed", error };
    }
  }
}

/**
 * Runs a call with a current access token, and once more with a refreshed one if the platform
 * refuses it (Flex: a 403); `accessToken` answers null when there is none (the connection is
 * over). Refused again right after a good refresh, the connection is over too: `refusedAgain` ends
 * it, and the refusal is thrown on.
 */
export async function withAccessToken<T>(
  accessToken: (force: boolean) => Promise<string | null>,
  call: (token: string) => Promise<T>,
  refusedAgain: (why: string) => Promise<void>,
): Promise<T> {
  const token = await accessToken(false);
  if (!token) throw new PlatformError("refused", NOT_CONNECTED);
  try {
    return await call(token);
  } catch (err) {
    if (!(err instanceof PlatformError) || err.kind !== "refused") throw err;
    const renewed = await accessToken(true);
    if (!renewed) throw new PlatformError("refused", NOT_CONNECTED);
    try {
      return await call(renewed);
    } catch (again) {
      if (again instanceof PlatformError && again.kind === "refused") await refusedAgain(again.message);
      throw again;
    }
  }
}
