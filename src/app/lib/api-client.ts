import { type ClientResponse, hc } from "hono/client";
// The one import the SPA makes from the Worker: a type, erased at build time (tsconfig.app.json
// reads it from the Worker project's declarations, so the routes' types are computed once).
import type { AppType } from "../../worker/app";
import { takeEarlyRead } from "../boot/early-reads";

/**
 * The one way the SPA calls the API: Hono's typed client over the Worker's routes, so paths,
 * request bodies, query strings and answers are checked against the Worker's own validators and
 * handlers. How a feature calls the API:
 *
 *   const { Item } = await unwrap(api.flex.v1.user.$get());                       // signed in
 *   await unwrap(publicApi.auth["sign-in"].$post({ json: { phoneNumber, app, password } }));
 *   useSWR(["campaigns", query], () => unwrap(api.admin.campaigns.$get({ query: asQuery(query) })));
 *
 * `unwrap` returns the parsed answer or throws ApiClientError carrying the error envelope's code
 * and message. The client never shows toasts or redirects: the screens decide. The session module
 * registers how to get a current ID token (refreshed first when it has expired).
 */
export class ApiClientError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ApiClientError";
  }
}

type TokenSource = () => Promise<string | null>;
let tokenSource: TokenSource = async () => null;

/** Called by the session module; every signed-in request asks it for a current ID token. */
export function setTokenSource(source: TokenSource) {
  tokenSource = source;
}

/** The path and query of a request's address, as early-reads.ts keys what it started. */
function pathOf(input: RequestInfo | URL): string {
  // The base only completes the client's relative addresses (not the page's, which may be any).
  const url = new URL(input instanceof Request ? input.url : input, "http://localhost");
  return `${url.pathname}${url.search}`;
}

async function send(input: RequestInfo | URL, init: RequestInit | undefined, withToken: boolean): Promise<Response> {
  const headers = new Headers(init?.headers);
  if (!headers.has("Accept")) headers.set("Accept", "application/json");
  const token = withToken ? await tokenSource() : null;
  if (token) headers.set("Authorization", `Bearer ${token}`);
  // A signed-in read the entry started before this code had loaded (a page opened directly) is
  // answered from that request instead of a second one.
  const early = withToken && (init?.method ?? "GET") === "GET" ? takeEarlyRead(pathOf(input), token) : null;
  try {
    return await (early ?? fetch(input, { ...init, headers }));
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new ApiClientError(0, "network_error", "Network error: check your connection");
  }
}

/** Calls as the signed-in user: each carries a current ID token. */
export const api = hc<AppType>("/", { fetch: (input: RequestInfo | URL, init?: RequestInit) => send(input, init, true) }).api;

/** Calls that take no ID token (sign-in, refresh, codes): sending a stale one would only trigger a refresh first. */
export const publicApi = hc<AppType>("/", { fetch: (input: RequestInfo | URL, init?: RequestInit) => send(input, init, false) }).api;

/** The JSON a route answers on success. */
export type Answer<R> = R extends ClientResponse<infer Body, infer _Status, infer _Format> ? Body : never;

async function failure(res: Response): Promise<ApiClientError> {
  const text = await res.text().catch(() => "");
  let envelope: { code?: string; message?: string; details?: unknown } | undefined;
  try {
    envelope = (JSON.parse(text) as { error?: typeof envelope }).error;
  } catch {
    envelope = undefined;
  }
  return new ApiClientError(res.status, envelope?.code ?? "http_error", envelope?.message ?? `Request failed (${res.status})`, envelope?.details);
}

/** Awaits a call: its answer, typed from the route, or an ApiClientError from the error envelope. */
export async function unwrap<R extends ClientResponse<unknown, number, string>>(call: Promise<R>): Promise<Answer<R>> {
  const res = await call;
  if (!res.ok) throw await failure(res);
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as Answer<R>;
}

/** Awaits a call that answers text (a CSV export): the text, or an ApiClientError. */
export async function unwrapText(call: Promise<ClientResponse<unknown, number, string>>): Promise<string> {
  const res = await call;
  if (!res.ok) throw await failure(res);
  return res.text();
}

type Written<Value> = Value extends readonly unknown[] ? string[] : Value extends string ? Value : string;
export type WrittenQuery<Query> = { [Key in keyof Query]: Written<Exclude<Query[Key], null | undefined>> };

/**
 * A query string as the typed client takes it (every value a string, or a list of them for a
 * repeated parameter): numbers and booleans are written out and empty values left off, so
 * `{ page: 2, search: "", region: ["A", "B"] }` sends `?page=2&region=A&region=B`.
 */
export function asQuery<Query extends Record<string, unknown>>(query: Query): WrittenQuery<Query> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    out[key] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return out as WrittenQuery<Query>;
}
