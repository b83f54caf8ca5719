import { currentStoredIdToken } from "../lib/session-storage";

/**
 * Reads started before the code that makes them has loaded. A page opened directly waits for the
 * entry, the route table, its own chunks and the user before it asks for its data, each after the
 * one before; the entry (start-early.ts) can instead start the page's GET requests at once, with
 * the stored session's ID token, and the typed client (api-client.ts) answers the page's first
 * calls to those addresses from them rather than asking again. The data then loads beside the code.
 *
 * This is no second way to call the API: nothing reads these answers but the typed client, each
 * answers one call, and only a call made with the same ID token, so a session that changed in the
 * meantime asks afresh. Kept small and free of the client's code: it runs on the landing route.
 */

/** An early answer older than this is dropped and the page asks afresh: it shows live data. */
export const EARLY_READ_MAX_AGE_MS = 10_000;

type EarlyRead = { idToken: string; startedAt: number; answer: Promise<Response> };
const started = new Map<string, EarlyRead>();

/**
 * Starts a GET of each path ("/api/…?query", as the typed client writes it) when a current session
 * is stored; one index.html's inline script already started with that token is taken over instead.
 */
export function startEarlyReads(paths: readonly string[], now = Date.now()) {
  const idToken = currentStoredIdToken(now);
  if (!idToken) return;
  const inline = window.blockpilotEarlyReads;
  delete window.blockpilotEarlyReads;
  for (const path of paths) {
    const begun = inline?.idToken === idToken ? inline.answers[path] : undefined;
    if (begun) {
      started.set(path, { idToken, startedAt: inline!.startedAt, answer: begun });
      continue;
    }
    const answer = fetch(path, { headers: { Accept: "application/json", Authorization: `Bearer ${idToken}` } });
    // A failure surfaces in the call it answers; one never taken must not be reported as unhandled.
    answer.catch(() => {});
    started.set(path, { idToken, startedAt: now, answer });
  }
}

/** The early answer to GET `path` with `idToken`, if one was started and is recent; each is handed out once. */
export function takeEarlyRead(path: string, idToken: string | null, now = Date.now()): Promise<Response> | null {
  const read = started.get(path);
  if (!read) return null;
  started.delete(path);
  return read.idToken === idToken && now - read.startedAt <= EARLY_READ_MAX_AGE_MS ? read.answer : null;
}
