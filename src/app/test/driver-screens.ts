/** The driver screens' tests: a Flex driver not yet connected, and what each test resets. */
import { afterEach, beforeEach, vi } from "vitest";
import { setLanguage } from "../i18n";
import type { User } from "../lib/session";

export const driver = { name: "Dana Driver", isAdmin: false, app: "flex", email: null, accountConnected: false, setupComplete: false } as Partial<User>;

/** Each test starts in English, and leaves no stub or mock behind. */
export function resetEachTest() {
  beforeEach(() => setLanguage("en"));
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });
}
