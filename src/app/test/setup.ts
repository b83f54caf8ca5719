import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { afterAll, afterEach, beforeAll } from "vitest";
import { apiServer } from "./api-server";

// Vitest runs without globals, so Testing Library cannot register its own clean-up.
afterEach(() => cleanup());

// findBy/waitFor give up after this long; the default second is too short on a busy machine. The
// first render of a lazy layout under CI's three parallel jobs took 5.5 s once; tests time out at 30 s.
configure({ asyncUtilTimeout: 10_000 });

// App tests never reach a network: msw answers every request, a test's handlers first; one they
// do not take (a late SWR retry after a test has ended, say) fails as a network error, instead of
// leaving happy-dom for http://localhost:3000.
beforeAll(() => apiServer.listen({ onUnhandledFrame: "error" }));
afterEach(() => apiServer.resetHandlers());
afterAll(() => apiServer.close());

// happy-dom lays nothing out and its IntersectionObserver never calls back: here every observed
// element is on screen, told on the next task, as a browser would after its first layout. Parts that
// wait to be near the screen (components/ui/use-in-view.ts: a chart, the what-if) then render as in a tall window.
class OnScreenObserver {
  readonly root = null;
  readonly rootMargin = "0px";
  readonly thresholds = [0];
  private live = true;
  constructor(private readonly callback: IntersectionObserverCallback) {}
  observe(target: Element) {
    setTimeout(() => {
      if (!this.live) return;
      const rect = target.getBoundingClientRect();
      const entry = {
        target,
        isIntersecting: true,
        intersectionRatio: 1,
        boundingClientRect: rect,
        intersectionRect: rect,
        rootBounds: null,
        time: performance.now(),
      };
      this.callback([entry as IntersectionObserverEntry], this as unknown as IntersectionObserver);
    });
  }
  unobserve() {}
  disconnect() {
    this.live = false;
  }
  takeRecords(): IntersectionObserverEntry[] {
    return [];
  }
}
globalThis.IntersectionObserver = OnScreenObserver as unknown as typeof IntersectionObserver;
