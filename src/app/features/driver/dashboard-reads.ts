/**
 * What the dashboard reads when it opens, as the typed client writes the addresses: the engine,
 * the offers' first page of every status (usePaging's start), and the summaries' payments and
 * invitations. The entry starts these with the page's code (src/app/boot/start-early.ts,
 * boot/early-reads.ts) and the page's first reads are answered from them. Plain strings, so the
 * entry can import them without the client; a test holds them equal to what the page asks for.
 */
export const DASHBOARD_READS = [
  "/api/driver/engine",
  "/api/driver/offers?page=1&pageSize=20",
  "/api/payments?page=1&pageSize=20",
  "/api/invitations?page=1&pageSize=20",
];
