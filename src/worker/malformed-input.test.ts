/**
 * docs/architecture.md, budgets: any endpoint given malformed input answers a 4xx in the one error envelope, never a
 * 5xx, and writes nothing. Every route the app registers is called by a signed-in owner (so
 * authorization lets it through to validation) with broken JSON, bodies of the wrong shape,
 * nonsense query values and nonsense path ids; the row count of every table is compared before
 * and after.
 */
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "./app";
import { call, PASSWORD, seedAdmin, tokenFor, uniqueAddress, uniquePhone } from "./test/fixtures";
import { methodsOf, registeredRoutes } from "./test/routes";

type Attempt = { label: string; path: string; body?: string; contentType?: string };

/**
 * Routes that take no input: any query or body is ignored, so a 200 is the right answer (their
 * path ids are still checked).
 */
const NO_INPUT = new Set([
  "GET /api/status/health",
  "GET /api/status/site",
  // The API reference (development only): a document about the routes, whatever the query.
  "GET /api/openapi.json",
  "GET /api/reseller",
  "GET /api/flex/v1/user",
  "GET /api/flex/v1/user/chat",
  // The caller's own data, whatever the query.
  "GET /api/account/export",
  "GET /api/admin/settings",
  "GET /api/admin/users/:id",
  "GET /api/admin/audit/actions",
  "GET /api/driver/connection",
  "GET /api/driver/notifications",
  "GET /api/driver/filters",
  "GET /api/driver/engine",
  // Disconnecting a driver who is not connected changes nothing.
  "DELETE /api/driver/connection",
]);

/** Of those, the reads that count against a per-caller limit when they answer: their window's row in `rate_limits` is the one write. */
const COUNTED = new Set(["GET /api/account/export"]);

/**
 * Routes that take no input yet write on every call: starting a Flex sign-in makes a new attempt
 * (and counts against the connect limits) whatever it is sent, driver-connection.test.ts covers
 * it; a live dashboard's ticket is made in the driver's object (not D1), live-dashboard.test.ts.
 */
const WRITES_WITHOUT_INPUT = new Set(["POST /api/driver/connection/sign-in", "POST /api/driver/live-ticket"]);

const BAD_QUERY =
  "page=-1&pageSize=7&Limit=-1&ExclusiveStartKey=%7Bnope&from=2026-13-45&to=someday&timeZone=Mars%2FOlympus&app=pluto&channel=fax&status=lost&sort=__proto__&dir=sideways&createdFrom=2026-13-45&createdTo=yesterday&goodStanding=maybe&regions=%00&q=" +
  "x".repeat(300);

const BAD_BODIES: { label: string; body: string; contentType?: string }[] = [
  { label: "broken JSON", body: '{"phoneNumber": ' },
  { label: "a JSON array", body: "[1, 2, 3]" },
  { label: "JSON null", body: "null" },
  { label: "a JSON string", body: '"hello"' },
  {
    label: "fields of the wrong types",
    body: JSON.stringify({
      phoneNumber: 5,
      password: ["x"],
      code: { a: 1 },
      app: "pluto",
      idempotencyKey: 7,
      source: "everyone",
      channel: "fax",
      message: 12,
      numbers: "all",
      page: "one",
    }),
  },
  { label: "a form body", body: "phoneNumber=1&password=2", contentType: "application/x-www-form-urlencoded" },
  { label: "a body over 1 MB", body: JSON.stringify({ message: "x".repeat(1024 * 1024 + 10) }) },
];

/** Made-up path values of the wrong kind for `:id`-style parameters. */
const BAD_IDS = ["abc", "-1", "1.5", "99999999999999999999999"];

/** Every route with a handler (`.all()` ones once per method they are called with). */
function routes(): { method: string; path: string }[] {
  return registeredRoutes(app).flatMap((r) => methodsOf(r.method).map((method) => ({ method, path: r.path })));
}

const hasParams = (pattern: string) => /:[A-Za-z_]/.test(pattern);
const withId = (pattern: string, id: string) => pattern.replace(/:[A-Za-z_]\w*(\{[^}]*\})?/g, encodeURIComponent(id));

/**
 * The id of the attempts about the query or the body: well formed, and of nothing in the database
 * (which other test files share), so every route answers it the same whatever ran before. A route
 * that takes no input is called with the signed-in owner's own id instead, which exists.
 */
const ABSENT_ID = "987654321";

function attemptsFor(method: string, pattern: string): Attempt[] {
  const base = withId(pattern, ABSENT_ID);
  const attempts: Attempt[] = [];
  if (method === "GET") attempts.push({ label: "nonsense query values", path: `${base}?${BAD_QUERY}` });
  else for (const b of BAD_BODIES) attempts.push({ label: b.label, path: base, body: b.body, contentType: b.contentType });
  if (hasParams(pattern))
    for (const id of BAD_IDS) attempts.push({ label: `path id ${id}`, path: withId(pattern, id), ...(method === "GET" ? {} : { body: "{}" }) });
  return attempts;
}

/**
 * Row counts of every table: a request that wrote anything changes at least one. One statement
 * (a row with a column per table) instead of one per table: it runs twice for each of ~600 attempts.
 */
let countAll: string | undefined;
async function fingerprint(): Promise<Record<string, number>> {
  if (!countAll) {
    const tables = await env.DB.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%' ORDER BY name",
    ).all<{ name: string }>();
    countAll = `SELECT ${tables.results.map(({ name }) => `(SELECT count(*) FROM "${name}") AS "${name}"`).join(", ")}`;
  }
  return (await env.DB.prepare(countAll).first<Record<string, number>>()) ?? {};
}

let token: string;
let ownerId: number;
beforeAll(async () => {
  const owner = await seedAdmin({ password: null, roleName: "owner", roleProperties: { billingDetails: true } });
  ownerId = owner.id;
  token = await tokenFor(owner);
});

describe("malformed input", () => {
  it("reaches every route, and the fingerprint sees a write", async () => {
    expect(routes().length).toBeGreaterThan(30);
    const before = await fingerprint();
    const res = await call("/api/auth/register", { body: { phoneNumber: uniquePhone(), password: PASSWORD, name: "Well Formed", app: "flex" } });
    expect(res.status).toBe(201);
    expect(await fingerprint()).not.toEqual(before);
  });

  describe.each(routes().filter((r) => !WRITES_WITHOUT_INPUT.has(`${r.method} ${r.path}`)))("$method $path", ({ method, path: pattern }) => {
    it.each(attemptsFor(method, pattern))("$label: a 4xx envelope, nothing written", async ({ label, path: attempted, body, contentType }) => {
      const noInput = NO_INPUT.has(`${method} ${pattern}`);
      const path = noInput ? attempted.replaceAll(ABSENT_ID, String(ownerId)) : attempted;
      const before = await fingerprint();
      const headers: Record<string, string> = { Authorization: `Bearer ${token}`, "CF-Connecting-IP": uniqueAddress() };
      if (body !== undefined) headers["content-type"] = contentType ?? "application/json";
      const res = await exports.default.fetch(new Request(`https://bp.test${path}`, { method, headers, body }));
      const text = await res.text();
      const where = `${method} ${path.slice(0, 120)} → ${res.status} ${text.slice(0, 200)}`;

      // A route without input ignores a query or body, unless it is too large to be read at all (413).
      const ignored = noInput && !label.startsWith("path id") && (body?.length ?? 0) <= 1024 * 1024;
      if (ignored) expect(res.status, where).toBe(200);
      else {
        expect(res.status, where).toBeGreaterThanOrEqual(400);
        expect(res.status, where).toBeLessThan(500);
        const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
        expect(typeof parsed.error?.code, where).toBe("string");
        expect(typeof parsed.error?.message, where).toBe("string");
      }
      const after = await fingerprint();
      if (ignored && COUNTED.has(`${method} ${pattern}`)) after.rate_limits = before.rate_limits!;
      expect(after, where).toEqual(before);
    });
  });
});
