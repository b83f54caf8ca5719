export type TemplateComponent = { type: string; format?: string; text?: string };
/** A message template as Meta lists it (spec §3: id, name, language, components). */
export type WhatsAppTemplate = { id: string; name: string; language: string; status: string; category: TemplateCategory; components: TemplateComponent[] };
/** Meta's template categories: marketing templates are marketing messages, whatever the campaign says. */
export const TEMPLATE_CATEGORIES = ["MARKETING", "UTILITY", "AUTHENTICATION"] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];
/** An unknown category is treated as marketing, the stricter reading. */
export function templateCategory(value: unknown): TemplateCategory {
  return (TEMPLATE_CATEGORIES as readonly unknown[]).includes(value) ? (value as TemplateCategory) : "MARKETING";
}
export type TemplateRef = { name: string; language: string };

/** What the outbox shows for a template: its text header (when it has one) above its body. */
export function renderTemplate(components: TemplateComponent[]): string {
  const header = components.find((c) => c.type === "HEADER" && c.text)?.text;
  const body = components.find((c) => c.type === "BODY")?.text ?? "";
  return header ? `${header}\n\n${body}` : body;
}
