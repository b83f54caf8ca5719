import { act } from "react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { expectBoundaries, HydrationBoundary, rootCommitted, untilHydrated } from "./hydration";

/** Whether a promise has settled by the end of the current microtask queue. */
async function settled(promise: Promise<void>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

describe("untilHydrated", () => {
  it("does not wait when nothing is being hydrated (a page the client renders)", async () => {
    expect(await settled(untilHydrated())).toBe(true);
  });

  it("waits for every server-rendered boundary, not just the root's commit", async () => {
    const page = (
      <main>
        <HydrationBoundary fallback={null}>
          <p>one</p>
        </HydrationBoundary>
        <HydrationBoundary fallback={null}>
          <p>
            two
            <HydrationBoundary fallback={null}>
              <b>three</b>
            </HydrationBoundary>
          </p>
        </HydrationBoundary>
      </main>
    );
    const container = document.createElement("div");
    container.innerHTML = renderToString(page);
    expectBoundaries(container);
    const waiting = untilHydrated();
    // The root committing while its boundaries are still server HTML is not the end.
    rootCommitted();
    expect(await settled(waiting)).toBe(false);

    const errors: unknown[] = [];
    await act(async () => {
      hydrateRoot(container, page, { onRecoverableError: (error) => errors.push(error) });
    });
    expect(await settled(waiting)).toBe(true);
    expect(await settled(untilHydrated())).toBe(true);
    expect(errors).toEqual([]);
  });
});
