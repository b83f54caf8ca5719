/**
 * The two version identifiers the health check sends in its headers (docs/api.md): the app's
 * release and the number of the last database migration applied (the schema version, "21").
 * Shown in the footer for support.
 */
export type Versions = { app: string; schema: string };

export const APP_VERSION_HEADER = "x-app-version";
export const SCHEMA_VERSION_HEADER = "x-schema-version";

export function versionsFrom(headers: Headers): Versions | null {
  const app = headers.get(APP_VERSION_HEADER);
  const schema = headers.get(SCHEMA_VERSION_HEADER);
  return app && schema ? { app, schema } : null;
}
