import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { afterEach } from "vitest";

// Vitest runs without globals, so Testing Library cannot register its own clean-up.
afterEach(() => cleanup());

// findBy/waitFor give up after this long; the default second is too short on a busy machine.
configure({ asyncUtilTimeout: 5000 });

// App tests never reach a network: a request no stub answers (a late SWR retry after a test has
// ended, say) fails here instead of leaving happy-dom for http://localhost:3000.
globalThis.fetch = async (input: RequestInfo | URL) => {
  throw new TypeError(`No test answers this request: ${String(input)}`);
};
