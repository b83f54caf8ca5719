/** Structured logs: one JSON object a line, which Workers Logs indexes by field. */
export type LogFields = Record<string, unknown>;

function write(level: "debug" | "info" | "warn" | "error", msg: string, fields: LogFields) {
  const line = JSON.stringify({ level, msg, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

export type Logger = ReturnType<typeof createLogger>;

export function createLogger(base: LogFields = {}) {
  return {
    debug: (msg: string, fields: LogFields = {}) => write("debug", msg, { ...base, ...fields }),
    info: (msg: string, fields: LogFields = {}) => write("info", msg, { ...base, ...fields }),
    warn: (msg: string, fields: LogFields = {}) => write("warn", msg, { ...base, ...fields }),
    error: (msg: string, fields: LogFields = {}) => write("error", msg, { ...base, ...fields }),
    child: (fields: LogFields) => createLogger({ ...base, ...fields }),
  };
}
