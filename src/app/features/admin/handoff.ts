/**
 * What one admin page hands another through navigation state: "Message these" on the leads page
 * opens the tools page with the chosen numbers filled in.
 */
export type ToolsHandoff = { phones: string[]; app?: "flex" | "spark"; from: "leads" };

export function readToolsHandoff(state: unknown): ToolsHandoff | null {
  const s = state as Partial<ToolsHandoff> | null;
  return s && Array.isArray(s.phones) && s.phones.every((p) => typeof p === "string") && s.from === "leads" ? (s as ToolsHandoff) : null;
}
