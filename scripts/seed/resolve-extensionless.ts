/**
 * Lets Node load the Worker's modules (src/worker/db/schema.ts and what it imports), which name
 * their imports without the ".ts" the bundler adds: a relative import that Node cannot find is
 * tried again as "<name>.ts". Registered before the seed imports the schema.
 */
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      const relative = specifier.startsWith("./") || specifier.startsWith("../");
      if (!relative || /\.[cm]?[jt]sx?$/.test(specifier)) throw error;
      return nextResolve(`${specifier}.ts`, context);
    }
  },
});
