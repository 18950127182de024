/**
 * Organizer groups' names, for the Worker and the Node commands alike: group n's database is
 * the binding `DB` (n = 1) or `DB_<n>`, and its rows' ids start above (n - 1) × ID_RANGE, so ids
 * stay unique across groups.
 */
export const ID_RANGE = 1_000_000_000_000;

const BINDING = /^DB(?:_([1-9][0-9]*))?$/;

/** The binding of a group's database. */
export function groupBinding(group: number): string {
  return group === 1 ? "DB" : `DB_${group}`;
}

/** The group whose database a binding is (null: the binding is no group's). */
export function bindingGroup(binding: string): number | null {
  const m = BINDING.exec(binding);
  return m ? (m[1] === undefined ? 1 : Number(m[1])) : null;
}
