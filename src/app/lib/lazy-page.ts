import type { ComponentType } from "react";

/** docs/product.md, constants: a chunk that has not loaded after 120 s counts as failed. */
export const CHUNK_LOAD_TIMEOUT_MS = 120_000;

export class ChunkLoadError extends Error {
  constructor(cause?: unknown) {
    super("Loading chunk failed", { cause });
    this.name = "ChunkLoadError";
  }
}

/** What browsers say when a dynamic import's file cannot be fetched (Chromium, Safari, Firefox). */
const FAILED_IMPORT = /Failed to fetch dynamically imported module|Importing a module script failed|error loading dynamically imported module/i;

/** A page's chunk, or a lazily loaded part of one (React.lazy), that could not be downloaded. */
export function isChunkLoadError(error: unknown): boolean {
  return error instanceof Error && (error.name === "ChunkLoadError" || FAILED_IMPORT.test(error.message));
}

/**
 * A route's `lazy` loader for a page module with a default export. A failed or stalled download
 * becomes a ChunkLoadError, which the route error element shows as the page-load boundary.
 */
export function lazyPage(load: () => Promise<{ default: ComponentType }>, timeoutMs = CHUNK_LOAD_TIMEOUT_MS) {
  return async () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ChunkLoadError("timeout")), timeoutMs);
    });
    try {
      const module = await Promise.race([load(), timeout]);
      return { Component: module.default };
    } catch (err) {
      throw isChunkLoadError(err) ? err : new ChunkLoadError(err);
    } finally {
      clearTimeout(timer);
    }
  };
}
