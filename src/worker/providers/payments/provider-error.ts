/** A provider call that failed; `retryable` for rate limits, outages and time-outs. */
export class PaymentsProviderError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = "PaymentsProviderError";
  }
}
