/**
 * Structured logs: every line is ONE object handed to the console, so Workers Logs (`[observability]`)
 * indexes its fields. A line has `level`, `message`, the fields of the running context set once where
 * the work starts (`withLogContext`: request id, organizer, event; queue, message or cron run) and its
 * own; names are snake_case; an error is `{name, message, stack}` under `error`.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export type LogLevel = "info" | "warn" | "error";

export type LogFields = Record<string, unknown>;

/** The fields of the running work, computed when a line is written (a request's organizer is known only after authentication). */
type LogContext = () => LogFields;

const context = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with `fields` on every line it logs (added to those of an enclosing context). */
export function withLogContext<T>(fields: LogFields | LogContext, fn: () => T): T {
  const outer = context.getStore();
  const own = typeof fields === "function" ? fields : () => fields;
  return context.run(outer ? () => ({ ...outer(), ...own() }) : own, fn);
}

/** An error as plain fields (an Error object itself serializes to `{}`). */
export function errorFields(e: unknown): LogFields {
  if (e instanceof Error) return { name: e.name, message: e.message, stack: e.stack ?? null };
  return { message: String(e) };
}

function write(level: LogLevel, message: string, fields: LogFields = {}): void {
  const line: LogFields = { level, message };
  let ambient: LogFields = {};
  try {
    ambient = context.getStore()?.() ?? {};
  } catch {
    // a context whose fields cannot be read (say, outside its request) adds nothing
  }
  for (const [k, v] of Object.entries({ ...ambient, ...fields })) {
    if (v === undefined || k === "level" || k === "message") continue;
    line[k] = v instanceof Error ? errorFields(v) : v;
  }
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

export const log = {
  info: (message: string, fields?: LogFields) => write("info", message, fields),
  warn: (message: string, fields?: LogFields) => write("warn", message, fields),
  error: (message: string, fields?: LogFields) => write("error", message, fields),
};
