import { describe, expect, it } from "vitest";
import { inboundIntent, normalizeInbound } from "./inbound-intent";

const kind = (body: string) => inboundIntent(body)?.kind ?? null;
const language = (body: string) => inboundIntent(body)?.language;

describe("inboundIntent — keywords", () => {
  it.each([
    "STOP",
    "stop",
    "Stop.",
    " STOP ",
    "STOPALL",
    "UNSUBSCRIBE",
    "CANCEL",
    "END",
    "QUIT",
    "REVOKE",
    "OPTOUT",
    "opt out",
    "Stop please",
    "STOP!!!",
    "ok stop",
  ])("%j stops (English or universal)", (body) => expect(kind(body)).toBe("stop"));

  it.each(["PARAR", "Para", "ALTO", "cancelar", "BAJA", "Detener", "basta", "¡No más!", "NO MAS", "baja por favor", "Darme de baja"])(
    "%j stops (Spanish)",
    (body) => {
      expect(kind(body)).toBe("stop");
      expect(language(body)).toBe("es");
    },
  );

  it("START and HELP in both languages", () => {
    for (const body of ["START", "unstop", "YES"]) expect(kind(body)).toBe("start");
    for (const body of ["ALTA", "Reanudar", "sí"]) expect(inboundIntent(body)).toMatchObject({ kind: "start", language: "es" });
    for (const body of ["HELP", "help?", "INFO"]) expect(kind(body)).toBe("help");
    for (const body of ["AYUDA", "Información"]) expect(inboundIntent(body)).toMatchObject({ kind: "help", language: "es" });
  });

  it("leaves the language of universal keywords to the caller", () => {
    expect(language("STOP")).toBeNull();
    expect(language("START")).toBeNull();
    expect(language("UNSUBSCRIBE")).toBe("en");
  });
});

describe("inboundIntent — plain language", () => {
  it.each([
    "stop texting me",
    "Please stop sending me these messages",
    "Stop the texts",
    "no more texts please",
    "Don't text me anymore",
    "do not contact me again",
    "I don't want these messages",
    "remove me from your list",
    "Take me off the list",
    "delete my number",
    "leave me alone",
    "how do I unsubscribe?",
    "opt me out",
  ])("%j stops (en)", (body) => {
    expect(inboundIntent(body)).toMatchObject({ kind: "stop", language: "en" });
  });

  it.each([
    "no más mensajes",
    "No quiero recibir más mensajes",
    "Ya no quiero sus mensajes",
    "dejen de enviarme mensajes",
    "Deja de escribirme",
    "no me manden más",
    "No me escriban",
    "quiero darme de baja",
    "bórrenme de la lista",
    "Sácame de su lista por favor",
    "cancelar mi suscripción",
    "¿Cómo me doy de baja?",
  ])("%j stops (es)", (body) => {
    expect(inboundIntent(body)).toMatchObject({ kind: "stop", language: "es" });
  });

  it.each([
    "Please don't stop texting me, I love the offers",
    "don't stop",
    "no pares de mandarme ofertas",
    "No dejen de escribirme",
    "I'll stop by the station later",
    "When does the promo end?",
    "Stopped at the light, will call later",
    "Thanks for the update",
    "hola, una pregunta",
    "",
  ])("%j is not a request to stop", (body) => {
    expect(kind(body)).not.toBe("stop");
  });
});

describe("normalizeInbound", () => {
  it("folds case, accents and punctuation", () => {
    expect(normalizeInbound("¡NO MÁS   mensajes!")).toBe("no mas mensajes");
    expect(normalizeInbound("Don’t  text me.")).toBe("don't text me");
  });
});
