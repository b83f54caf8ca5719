// The `qrcode` package ships no types; this is the one call the MFA setup screen makes.
declare module "qrcode" {
  type QrOptions = {
    type?: "svg" | "utf8";
    margin?: number;
    width?: number;
    errorCorrectionLevel?: "L" | "M" | "Q" | "H";
    color?: { dark?: string; light?: string };
  };
  function renderToString(text: string, options?: QrOptions): Promise<string>;

  export { renderToString as toString };

  const qrcode: { toString: typeof renderToString };
  export default qrcode;
}
