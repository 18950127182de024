/**
 * Exporter inputs as pretix describes and checks them (pretix `api/serializers/exporters.py`:
 * each form field of an exporter becomes a serializer field; the list shows `name`,
 * `required` and, for choice fields, `choices`). Checking collects field errors in Django REST
 * framework's words; unknown fields are refused as pretix does.
 */
import { parseDate } from "../../lib/datetime";
import { parseDateTime } from "../../lib/datetime";
import { Problems, invalidPk } from "../../lib/failure";

export type InputDef =
  | { name: string; kind: "choice"; required: boolean; choices: readonly string[] }
  | { name: string; kind: "bool" }
  | { name: string; kind: "date" }
  | { name: string; kind: "datetime" }
  /** The id of one object (pretix: ModelChoiceField, a PrimaryKeyRelatedField in the API), e.g. a check-in list. */
  | { name: string; kind: "pk"; required: boolean; valid: ReadonlySet<number> }
  /** A list of ids of objects (questions); empty allowed. */
  | { name: string; kind: "ids"; valid: ReadonlySet<number> }
  /** Organizer exporters: slugs of events the caller may export (pretix: SlugRelatedField, many). */
  | { name: string; kind: "events"; valid: ReadonlyMap<string, number> };

/** How an input is described in the exporter list. */
export function describeInput(d: InputDef): { name: string; required: boolean; choices?: string[] } {
  if (d.kind === "choice") return { name: d.name, required: d.required, choices: [...d.choices] };
  // a related field is not a choice field in pretix's description: no `choices`
  if (d.kind === "pk") return { name: d.name, required: d.required };
  return { name: d.name, required: false };
}

const TRUE = new Set<unknown>([true, 1, "1", "true", "True", "yes", "on"]);
const FALSE = new Set<unknown>([false, 0, "0", "false", "False", "no", "off", ""]);

/** Python's name of a JSON value's type, as Django REST framework's messages name it. */
function pythonType(v: unknown): string {
  if (typeof v === "string") return "str";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (Array.isArray(v)) return "list";
  return "dict";
}

/**
 * The checked inputs: booleans (missing: false), dates (`YYYY-MM-DD`), datetimes (epoch ms),
 * choices, ids, id lists, event ids. Throws a validation failure listing every problem.
 */
export function parseInputs(defs: readonly InputDef[], body: unknown): Record<string, unknown> {
  const errors = new Problems();
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    errors.add(
      "non_field_errors",
      `Invalid data. Expected a dictionary, but got ${Array.isArray(body) ? "list" : typeof body}.`,
    );
    errors.throwIfAny();
  }
  const data = body as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const d of defs) {
    const value = data[d.name];
    const sink: Sink = { set: (v) => (out[d.name] = v), error: (message) => errors.add(d.name, message) };
    switch (d.kind) {
      case "choice":
        parseChoice(d, value, sink);
        break;
      case "bool":
        parseBool(value, sink);
        break;
      case "date":
        parseDateInput(value, sink);
        break;
      case "datetime":
        parseDateTimeInput(value, sink);
        break;
      case "pk":
        parsePk(d, value, sink);
        break;
      case "ids":
        parseIds(d, value, sink);
        break;
      case "events":
        parseEvents(d, value, sink);
        break;
    }
  }
  const known = new Set(defs.map((d) => d.name));
  const extra = Object.keys(data).filter((k) => !known.has(k));
  if (extra.length) errors.add("fields", `Additional fields not allowed: [${extra.map((k) => `'${k}'`).join(", ")}].`);
  errors.throwIfAny();
  return out;
}

/** Where a parsed input goes: its value, or a problem under its name. */
type Sink = { set(value: unknown): void; error(message: string): void };

/** A choice: a string, or an integer taken as its string (Django REST framework compares `str(value)`). */
function parseChoice(d: Extract<InputDef, { kind: "choice" }>, value: unknown, sink: Sink): void {
  const missing = value === undefined || value === null;
  if (missing) {
    if (d.required) sink.error(value === null ? "This field may not be null." : "This field is required.");
  } else {
    // Django REST framework compares `str(value)`: the number 1 is the choice "1"
    const choice =
      typeof value === "string" ? value : typeof value === "number" && Number.isInteger(value) ? String(value) : null;
    if (choice === null || !d.choices.includes(choice))
      sink.error(`"${typeof value === "string" ? value : JSON.stringify(value)}" is not a valid choice.`);
    else sink.set(choice);
  }
}

/** A boolean (missing: false). */
function parseBool(value: unknown, sink: Sink): void {
  const missing = value === undefined || value === null;
  if (missing) sink.set(false);
  else if (TRUE.has(value)) sink.set(true);
  else if (FALSE.has(value)) sink.set(false);
  else sink.error("Must be a valid boolean.");
}

/** A date, `YYYY-MM-DD` (missing: null). */
function parseDateInput(value: unknown, sink: Sink): void {
  const missing = value === undefined || value === null;
  if (missing) sink.set(null);
  else if (typeof value !== "string" || parseDate(value) === null)
    sink.error("Date has wrong format. Use one of these formats instead: YYYY-MM-DD.");
  else sink.set(value);
}

/** A datetime as epoch ms (missing: null). */
function parseDateTimeInput(value: unknown, sink: Sink): void {
  const missing = value === undefined || value === null;
  const ms = typeof value === "string" ? parseDateTime(value) : null;
  if (missing) sink.set(null);
  else if (ms === null)
    sink.error(
      "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].",
    );
  else sink.set(ms);
}

/** An id among the valid ones. */
function parsePk(d: Extract<InputDef, { kind: "pk" }>, value: unknown, sink: Sink): void {
  const missing = value === undefined || value === null;
  // Django REST framework's PrimaryKeyRelatedField: an integer or a string of digits; booleans are refused
  if (missing) {
    if (d.required) sink.error(value === null ? "This field may not be null." : "This field is required.");
    else sink.set(null);
  } else if (
    (typeof value === "number" && Number.isSafeInteger(value)) ||
    (typeof value === "string" && /^-?[0-9]+$/.test(value))
  ) {
    const id = Number(value);
    if (d.valid.has(id)) sink.set(id);
    else sink.error(invalidPk(value));
  } else {
    sink.error(`Incorrect type. Expected pk value, received ${pythonType(value)}.`);
  }
}

/** A list of ids among the valid ones (missing: none). */
function parseIds(d: Extract<InputDef, { kind: "ids" }>, value: unknown, sink: Sink): void {
  const missing = value === undefined || value === null;
  if (missing) {
    sink.set([]);
    return;
  }
  if (!Array.isArray(value)) {
    sink.error(
      `Expected a list of items but got type "${typeof value === "object" ? "dict" : typeof value === "string" ? "str" : typeof value}".`,
    );
    return;
  }
  const ids: number[] = [];
  for (const v of value) {
    if (typeof v !== "number" || !Number.isInteger(v))
      sink.error(`Incorrect type. Expected pk value, received ${typeof v === "string" ? "str" : typeof v}.`);
    else if (!d.valid.has(v)) sink.error(invalidPk(v));
    else ids.push(v);
  }
  sink.set([...new Set(ids)]);
}

/** A list of event slugs, as their ids (missing: every event the caller may export). */
function parseEvents(d: Extract<InputDef, { kind: "events" }>, value: unknown, sink: Sink): void {
  // missing: every event the caller may export (pretix's `events` is not required)
  if (value === undefined) {
    sink.set([...d.valid.values()]);
    return;
  }
  if (!Array.isArray(value)) {
    sink.error(
      `Expected a list of items but got type "${value === null ? "null" : typeof value === "string" ? "str" : typeof value}".`,
    );
    return;
  }
  if (value.length === 0) {
    sink.error("This list may not be empty.");
    return;
  }
  const ids: number[] = [];
  for (const v of value) {
    const id = typeof v === "string" ? d.valid.get(v) : undefined;
    if (id === undefined)
      sink.error(`Object with slug=${typeof v === "string" ? v : JSON.stringify(v)} does not exist.`);
    else ids.push(id);
  }
  sink.set([...new Set(ids)]);
}
