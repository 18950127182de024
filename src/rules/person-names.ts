/**
 * Person names as pretix stores them: an object of name components plus `_scheme`, the name
 * scheme that says which components exist and how they are joined into one string. The
 * schemes and their concatenation rules are pretix's (PERSON_NAME_SCHEMES); the organizer
 * default scheme is pretix's default, `full`.
 */

export type NameParts = Record<string, string>;

type Scheme = { fields: readonly string[]; concatenation: (p: NameParts) => string };

const join = (sep: string, ...parts: (string | undefined)[]) => parts.filter((p) => p).join(sep);

export const NAME_SCHEMES: Record<string, Scheme> = {
  given_family: { fields: ["given_name", "family_name"], concatenation: (p) => join(" ", p.given_name, p.family_name) },
  title_given_family: {
    fields: ["title", "given_name", "family_name"],
    concatenation: (p) => join(" ", p.title, p.given_name, p.family_name),
  },
  given_middle_family: {
    fields: ["given_name", "middle_name", "family_name"],
    concatenation: (p) => join(" ", p.given_name, p.middle_name, p.family_name),
  },
  title_given_middle_family: {
    fields: ["title", "given_name", "middle_name", "family_name"],
    concatenation: (p) => join(" ", p.title, p.given_name, p.middle_name, p.family_name),
  },
  family_given: { fields: ["family_name", "given_name"], concatenation: (p) => join(" ", p.family_name, p.given_name) },
  family_nospace_given: {
    fields: ["given_name", "family_name"],
    concatenation: (p) => join("", p.family_name, p.given_name),
  },
  family_comma_given: {
    fields: ["given_name", "family_name"],
    concatenation: (p) => join(", ", p.family_name, p.given_name),
  },
  full: { fields: ["full_name"], concatenation: (p) => p.full_name ?? "" },
  calling_full: { fields: ["calling_name", "full_name"], concatenation: (p) => p.full_name ?? "" },
  full_transcription: { fields: ["full_name", "latin_transcription"], concatenation: (p) => p.full_name ?? "" },
};

/** The scheme used for name parts that do not name one (pretix's default `name_scheme`). */
export const DEFAULT_NAME_SCHEME = "full";

export function isNameScheme(name: string): boolean {
  return Object.hasOwn(NAME_SCHEMES, name);
}

/** Adds the default `_scheme` to non-empty parts that lack one (as pretix does on input). */
export function withScheme(parts: NameParts): NameParts {
  if (Object.keys(parts).length === 0 || "_scheme" in parts) return parts;
  return { ...parts, _scheme: DEFAULT_NAME_SCHEME };
}

/** The display name built from the parts; null when there is none. */
export function buildName(parts: NameParts | null | undefined): string | null {
  if (!parts || Object.keys(parts).length === 0) return null;
  if (typeof parts._legacy === "string") return parts._legacy.trim() || null;
  const scheme = NAME_SCHEMES[parts._scheme ?? DEFAULT_NAME_SCHEME] ?? NAME_SCHEMES[DEFAULT_NAME_SCHEME]!;
  const name = scheme.concatenation(parts).trim();
  return name === "" ? null : name;
}
