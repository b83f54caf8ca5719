/** The logo mark. Beside the product's name it is decoration (no alt); alone, pass its words. */
export function Logo({ size = 32, label = "" }: { size?: number; label?: string }) {
  return <img src="/logo.svg" width={size} height={size} alt={label} />;
}
