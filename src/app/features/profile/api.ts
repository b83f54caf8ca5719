import type { InferRequestType } from "hono/client";
import { api, unwrap } from "../../lib/api-client";

/** Signed-in identity calls; errors are thrown for the screens to word. */
export const profileApi = {
  update: (body: InferRequestType<typeof api.auth.me.$patch>["json"]) => unwrap(api.auth.me.$patch({ json: body })),
  /** The delivery-platform connection (its summary; tokens never reach the browser), and ending it. */
  connection: () => unwrap(api.driver.connection.$get()),
  disconnect: () => unwrap(api.driver.connection.$delete()),
  changePassword: (body: { currentPassword: string; newPassword: string }) => unwrap(api.auth["change-password"].$post({ json: body })),
  /** Everything we hold about the account, as the JSON document the download saves. */
  exportData: () => unwrap(api.account.export.$get()),
  /** Which proof deletion asks for: the password, or a code texted now. */
  startDelete: () => unwrap(api.account.delete.start.$post()),
  deleteAccount: (body: InferRequestType<typeof api.account.delete.$post>["json"]) => unwrap(api.account.delete.$post({ json: body })),
};
