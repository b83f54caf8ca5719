/**
 * The seam for signing Flex's capacity requests (docs/engine.md, "Limits of the platform"). The
 * platform asks accepts (and, by 2025 reports, the offers call) to carry a signature made with a
 * key its device-attestation service registered for a real phone; without one it answers 420. We
 * do not forge that attestation, so no signer is built in: a deployment that has a legitimate one
 * returns it from `requestSignerFor`, the Flex adapter adds its headers to every capacity call, and
 * the engine's 420 state says whether one is configured.
 */

/** A capacity request as it is about to go out. */
export type SignableRequest = { method: string; url: string; headers: Readonly<Record<string, string>>; body: string | undefined };

export interface RequestSigner {
  /** The headers that sign the request, added to it. */
  sign(request: SignableRequest): Promise<Record<string, string>>;
}

/** The signer this deployment uses: none (we do not make the platform's device signatures). */
export function requestSignerFor(_env: unknown): RequestSigner | null {
  return null;
}
