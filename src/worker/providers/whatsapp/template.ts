import { fillPlaceholders, parametersOf, type TemplateComponent, type TemplateParameters } from "../../../shared/templates";

/** What the outbox shows for a template: its text header (when it has one) above its body, placeholders filled in. */
export function renderTemplate(components: TemplateComponent[], parameters?: TemplateParameters): string {
  const headerText = components.find((c) => c.type === "HEADER" && c.text)?.text;
  const header = headerText ? fillPlaceholders(headerText, parametersOf(parameters, "header")) : undefined;
  const body = fillPlaceholders(components.find((c) => c.type === "BODY")?.text ?? "", parametersOf(parameters, "body"));
  return header ? `${header}\n\n${body}` : body;
}
