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
/**
 * Values for a template's placeholders ({{1}}, {{2}}…) as Meta's send call takes them: the text
 * parameters of its header and of its body, in placeholder order.
 */
export type TemplateParameters = { type: "header" | "body"; parameters: { type: "text"; text: string }[] }[];
/** How a campaign names its template, with the values of its placeholders when it has any. */
export type TemplateRef = { name: string; language: string; components?: TemplateParameters };

/** How many placeholders ({{1}}, {{2}}…) a template text has: the highest number in it. */
export function placeholderCount(text: string | undefined): number {
  let highest = 0;
  for (const m of (text ?? "").matchAll(/\{\{\s*(\d+)\s*\}\}/g)) highest = Math.max(highest, Number(m[1]));
  return highest;
}

/** The values given for one part ("header" or "body"), in order. */
export function parametersOf(parameters: TemplateParameters | undefined, type: "header" | "body"): string[] {
  return (parameters ?? []).filter((c) => c.type === type).flatMap((c) => c.parameters.map((p) => p.text));
}

/** A template text with its placeholders filled in ({{n}} is the n-th value; one without a value stays). */
export function fillPlaceholders(text: string, values: string[]): string {
  return text.replace(/\{\{\s*(\d+)\s*\}\}/g, (whole, n: string) => values[Number(n) - 1] ?? whole);
}
