/**
 * What every local runtime the benches and the e2e run start, and the wrangler d1 commands beside
 * them, are told. No request.cf lookup on the network. And no local observability: by default
 * wrangler dev streams a tail event of every invocation (each request, queue batch, Durable Object
 * and D1 call) to a collector of its own in the same runtime, for its local dashboard. A CPU
 * profile (perf) of the runtime's single thread during bench:dispatch put a tenth of its time
 * there. It is a tool of local development and does not exist in production, where the platform
 * collects logs outside the Worker; the benches measure our code, not it.
 */
export const LOCAL_RUNTIME_ENV = { CLOUDFLARE_CF_FETCH_ENABLED: "false", X_LOCAL_OBSERVABILITY: "false" };
