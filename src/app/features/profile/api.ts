import { api } from "../../lib/api-client";
import type { User } from "../../lib/session";

/** Signed-in identity calls of docs/api.md; errors are thrown for the screens to word. */
export const profileApi = {
  update: (body: { name: string; email: string; language: "en" | "es" }) => api.patch<{ Item: User }>("/api/auth/me", body),
  changePassword: (body: { currentPassword: string; newPassword: string }) => api.post<unknown>("/api/auth/change-password", body),
};
