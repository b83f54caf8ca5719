/**
 * React and its DOM renderer for main.tsx, from a chunk of their own with React's packages
 * (vite.config.ts): index.html's inline script evaluates that chunk in a task before the app's, so
 * the renderer's start-up (React's packages are CommonJS, run when first required: here) is not
 * one task with the app's modules.
 */
import * as React from "react";
import * as ReactDOMClient from "react-dom/client";

// Read here, at the chunk's evaluation (a re-export would be resolved to the packages by the
// bundler, and required by the app's chunk instead).
export const { startTransition, useEffect } = React;
export const { createRoot, hydrateRoot } = ReactDOMClient;
