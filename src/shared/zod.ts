/**
 * zod, configured once for both sides. jitless: zod otherwise probes `new Function` to compile
 * fast parsers; the SPA's Content-Security-Policy (no 'unsafe-eval') reports that probe as a
 * violation, and the Worker's runtime refuses eval anyway. Every schema imports `z` from here, so
 * the setting is in force before the first schema is built.
 */
import { z } from "zod";

z.config({ jitless: true });

export { z };
