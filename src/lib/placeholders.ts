/**
 * Texts with `{placeholder}`s, as pretix's configurable texts have them: filling them in, and
 * checking that a text uses only the placeholders it may (pretix's PlaceholderValidator).
 */

/** Fills `{placeholder}`s known in `values`; others stay as written (pretix's SafeFormatter). */
export function fillPlaceholders(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (Object.hasOwn(values, key) ? values[key]! : whole));
}

/** Why `text` cannot be used with the `allowed` placeholders (names without braces), or null. */
export function placeholderProblem(text: string, allowed: readonly string[]): string | null {
  if (text.split("{").length !== text.split("}").length)
    return 'Invalid placeholder syntax: You used a different number of "{" than of "}".';
  const invalid = (text.match(/\{[^}]*\}/g) ?? []).filter((p) => !allowed.includes(p.slice(1, -1)));
  return invalid.length ? `Invalid placeholder(s): ${invalid.join(", ")}` : null;
}
