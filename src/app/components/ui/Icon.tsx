import { ICON_SPRITE_URL } from "virtual:icon-sprite";
import type { IconName } from "./icon-names";

type Props = {
  name: IconName;
  /** Words for an icon that stands alone; without them the icon is decoration beside words. */
  label?: string;
  className?: string;
};

/** An icon from the sprite (icon-names.ts lists them). It takes the text colour and 1.25 rem. */
export function Icon({ name, label, className }: Props) {
  return (
    <svg
      className={className ? `icon ${className}` : "icon"}
      role={label ? "img" : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : true}
      focusable="false"
    >
      <use href={`${ICON_SPRITE_URL}#${name}`} />
    </svg>
  );
}
