/**
 * The source of index.html's inline script (first-load.ts says what it does). The build and the
 * development server compile it to one minified statement in place of index.html's
 * `<script data-source="src/app/boot/inline-script.ts">` (scripts/inline-script.ts).
 */
import { startFirstLoad } from "./first-load";

startFirstLoad(document.documentElement);
