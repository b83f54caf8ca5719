import type { ReactNode } from "react";
import { Icon } from "./Icon";
import type { IconName } from "./icon-names";

export type BadgeTone = "neutral" | "brand" | "success" | "warning" | "danger" | "info";

/** A short state in words (Sent, Failed, Owner). The tone only repeats what the words say. */
export function Badge({ tone = "neutral", icon, className, children }: { tone?: BadgeTone; icon?: IconName; className?: string; children: ReactNode }) {
  return (
    <span className={`badge badge-${tone}${className ? ` ${className}` : ""}`}>
      {icon && <Icon name={icon} />}
      {children}
    </span>
  );
}
