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

  /** A current access token; `force` refreshes even one far from expiry (the platform refused it). */
  async accessToken(sealed: string | null | undefined, platform: DeliveryPlatform, now: number, force = false): Promise<TokenAnswer> {
    if (!this.tokens) {
      if (!sealed) return { kind: "refused", why: "no tokens" };
      this.tokens = await this.open(sealed);
    }
    if (!force && this.tokens.accessExpiresAt - now > REFRESH_MARGIN_MS) return { kind: "token", accessToken: this.tokens.accessToken };
    try {
      this.tokens = await platform.refresh(this.tokens.refreshToken);
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
 * refuses it; `accessToken` answers null when there is none (the connection is over).
 */
export async function withAccessToken<T>(accessToken: (force: boolean) => Promise<string | null>, call: (token: string) => Promise<T>): Promise<T> {
  const token = await accessToken(false);
  if (!token) throw new PlatformError("refused", NOT_CONNECTED);
  try {
    return await call(token);
  } catch (err) {
    if (!(err instanceof PlatformError) || err.kind !== "refused") throw err;
    const renewed = await accessToken(true);
    if (!renewed) throw new PlatformError("refused", NOT_CONNECTED);
    return call(renewed);
  }
}
