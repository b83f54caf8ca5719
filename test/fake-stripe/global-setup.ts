import type { TestProject } from "vitest/node";
import { startFakeStripe } from "./server.ts";

/** Starts the fake Stripe API once for the Worker tests; its URL reaches them as the FAKE_STRIPE_URL binding. */
export default async function setup(project: TestProject) {
  const fake = await startFakeStripe();
  project.provide("fakeStripeUrl", fake.url);
  return () => fake.close();
}

declare module "vitest" {
  export interface ProvidedContext {
    fakeStripeUrl: string;
  }
}
