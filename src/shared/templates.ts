/** WhatsApp message templates as the provider lists them: the Worker mirrors them, the console picks one. */
export type TemplateComponent = { type: string; format?: string; text?: string };
export type WhatsAppTemplate = { id: string; name: string; language: string; status: string; components: TemplateComponent[] };
/** How a campaign names its template. */
export type TemplateRef = { name: string; language: string };
