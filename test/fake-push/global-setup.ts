import type { TestProject } from "vitest/node";
import { startFakePush } from "./server.ts";

/** Starts the fake push service once for the Worker tests; its URL reaches them as the FAKE_PUSH_URL binding. */
export default async function setup(project: TestProject) {
  const fake = await startFakePush();
  project.provide("fakePushUrl", fake.url);
  return () => fake.close();
}

declare module "vitest" {
  export interface ProvidedContext {
    fakePushUrl: string;
  }
}
