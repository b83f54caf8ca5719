import type { TemplateComponent } from "../../../shared/templates";

/** What the outbox shows for a template: its text header (when it has one) above its body. */
export function renderTemplate(components: TemplateComponent[]): string {
  const header = components.find((c) => c.type === "HEADER" && c.text)?.text;
  const body = components.find((c) => c.type === "BODY")?.text ?? "";
  return header ? `${header}\n\n${body}` : body;
}
