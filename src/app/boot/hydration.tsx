import { type ReactNode, Suspense, useEffect } from "react";

/**
 * When a pre-rendered page is wholly hydrated (docs/public-site.md, "Pre-rendered pages").
 *
 * React hydrates the page's Suspense boundaries after the rest, each in a pass of its own, so the
 * root's first commit does not mean the page is hydrated. A change to state outside React in
 * between — the language, above all: i18next's `t` reads it whatever React has rendered — reaches a
 * boundary that is still server HTML, which then hydrates with the other language's words against
 * the HTML's, and React throws its work away with a mismatch (#418). So the page stays inert, and a
 * language change waits, until every boundary the HTML holds has hydrated: each is a
 * `HydrationBoundary`, whose marker reports when its part of the page is React's.
 */

/** The longest anything waits for a boundary that never reports (a plain Suspense on a pre-rendered page). */
const HYDRATION_LIMIT_MS = 10_000;

let hydrating = false;
let expected = 0;
let seen = 0;
let resolveHydrated: () => void = () => {};
const fullyHydrated = new Promise<void>((resolve) => {
  resolveHydrated = resolve;
});
function done() {
  hydrating = false;
  resolveHydrated();
}

/**
 * Resolves at once when no hydration is under way (a page the client renders, or one already
 * hydrated); otherwise once every boundary has hydrated, or after HYDRATION_LIMIT_MS.
 */
export function untilHydrated(): Promise<void> {
  if (!hydrating) return Promise.resolve();
  return Promise.race([fullyHydrated, new Promise<void>((resolve) => setTimeout(resolve, HYDRATION_LIMIT_MS))]);
}

/**
 * Before hydrating `root`: counts the Suspense boundaries in its server HTML (React writes each as
 * a `<!--$-->` … `<!--/$-->` comment pair). With none, hydration is one pass and the root's commit is the end.
 */
export function expectBoundaries(root: Element): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_COMMENT);
  let count = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) if ((node as Comment).data.startsWith("$")) count++;
  expected = count;
  hydrating = true;
}

/** The root has committed (its first render, hydrated or not): with no boundary left to wait for, done. */
export function rootCommitted(): void {
  if (seen >= expected) done();
}

function boundaryHydrated() {
  seen++;
  if (seen >= expected) done();
}

function HydratedMark() {
  useEffect(boundaryHydrated, []);
  return null;
}

/**
 * Suspense for a page that may be pre-rendered: the same boundary, with a marker that says when it
 * has hydrated. Every Suspense on a pre-rendered page must be one, or `untilHydrated` waits for a
 * boundary that never reports, until its time limit.
 */
export function HydrationBoundary({ fallback, children }: { fallback: ReactNode; children: ReactNode }) {
  return (
    <Suspense fallback={fallback}>
      <HydratedMark />
      {children}
    </Suspense>
  );
}
