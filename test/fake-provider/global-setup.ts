import type { TestProject } from "vitest/node";
import { startFakeProvider } from "./server.ts";

/** Starts the fake provider once for the Worker tests; its URL reaches them as the FAKE_PROVIDER_URL binding. */
export default async function setup(project: TestProject) {
  const fake = await startFakeProvider();
  project.provide("fakeProviderUrl", fake.url);
  return () => fake.close();
}

declare module "vitest" {
  export interface ProvidedContext {
    fakeProviderUrl: string;
  }
}
