// The `qrcode` package ships no types; this is the one call the MFA setup screen makes.
declare module "qrcode" {
  type QrOptions = {
    type?: "svg" | "utf8";
    margin?: number;
    width?: number;
    errorCorrectionLevel?: "L" | "M" | "Q" | "H";
    color?: { dark?: string; light?: string };
  };
  // biome-ignore lint/suspicious/noShadowRestrictedNames: the package's own export name
  export function toString(text: string, options?: QrOptions): Promise<string>;
  const qrcode: { toString: typeof toString };
  export default qrcode;
}
