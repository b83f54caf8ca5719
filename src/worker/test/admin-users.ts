/**
 * The callers of the users page's and the user page's tests (admin/user*.test.ts). The sessions are
 * set by startListAdmins (a beforeAll of each file) and read through these bindings.
 */
import { expect } from "vitest";
import { call, json, seedAdmin, tokenFor } from "./fixtures";

export let owner: Awaited<ReturnType<typeof seedAdmin>>;
export let ownerToken: string;
export let supportToken: string;

/** The owner (with billingDetails) and a support administrator (without), and their sessions. */
export async function startListAdmins() {
  // Real sessions without the password round trip (tokenFor): these files are about the users' pages, not sign-in.
  owner = await seedAdmin({ password: null, roleName: "owner", roleProperties: { billingDetails: true } });
  ownerToken = await tokenFor(owner);
  supportToken = await tokenFor(await seedAdmin({ password: null, roleName: "support", roleProperties: { billingDetails: false } }));
}

/** A region name of the test's own: its rows, and only they, are in it. */
export const region = () => `Region ${crypto.randomUUID().slice(0, 8)}`;
/** A page of the users list, as the caller (the owner unless told otherwise) gets it. */
export const list = async (query: string, token = ownerToken) => {
  const res = await call(`/api/admin/users?${query}`, { token });
  expect(res.status, await res.clone().text()).toBe(200);
  return json<{ total: number; rows: { id: number; name: string; [k: string]: unknown }[] }>(res);
};
