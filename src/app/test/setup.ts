import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { afterEach } from "vitest";

// Vitest runs without globals, so Testing Library cannot register its own clean-up.
afterEach(() => cleanup());

// findBy/waitFor give up after this long; the default second is too short on a busy machine.
configure({ asyncUtilTimeout: 5000 });
