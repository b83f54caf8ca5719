import type { TestProject } from "vitest/node";
import { startFakePlatform } from "./server.ts";

/** Starts the fake delivery platform once for the Worker tests; its URL reaches them as the FAKE_PLATFORM_URL binding. */
export default async function setup(project: TestProject) {
  const fake = await startFakePlatform();
  project.provide("fakePlatformUrl", fake.url);
  return () => fake.close();
}

declare module "vitest" {
  export interface ProvidedContext {
    fakePlatformUrl: string;
  }
}
