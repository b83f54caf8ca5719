/** WhatsApp message templates as the provider lists them: the Worker mirrors them, the console picks one. */
export type TemplateComponent = { type: string; format?: string; text?: string };
export type WhatsAppTemplate = { id: string; name: string; language: string; status: string; category: TemplateCategory; components: TemplateComponent[] };
/** Meta's template categories: a marketing template is a marketing message, whatever the campaign says (docs/messaging-rules.md). */
export const TEMPLATE_CATEGORIES = ["MARKETING", "UTILITY", "AUTHENTICATION"] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];
/** An unknown category is read as marketing, the stricter reading. */
export function templateCategory(value: unknown): TemplateCategory {
  return (TEMPLATE_CATEGORIES as readonly unknown[]).includes(value) ? (value as TemplateCategory) : "MARKETING";
}
/** How a campaign names its template. */
export type TemplateRef = { name: string; language: string };
