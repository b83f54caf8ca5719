/// <reference types="vite/client" />

/** The icon sprite's URL, with its content hash (scripts/icon-sprite.ts). */
declare module "virtual:icon-sprite" {
  export const ICON_SPRITE_URL: string;
}
