/**
 * Ids unique across organizer groups: the tables of group n hand out ids above
 * (n - 1) × ID_RANGE (lib/group-names.ts), so an organizer's rows keep their ids when it moves to
 * another group, and an event object's name (its event id) never stands for two events. Run on
 * every data database after its migrations (`npm run migrate`, `npm start`, deploy, the tests).
 */

import { ID_RANGE } from "../lib/group-names.ts";

/** SQL that starts every AUTOINCREMENT table of group `group`'s database above its range's base (none for group 1). */
export function idRangeSql(group: number): string {
  const base = (group - 1) * ID_RANGE;
  if (!Number.isSafeInteger(base) || base < 0) throw new Error(`invalid organizer group ${group}`);
  if (base === 0) return "";
  return [
    "INSERT INTO sqlite_sequence (name, seq) SELECT name, ",
    String(base),
    " FROM sqlite_master WHERE type = 'table' AND sql LIKE '%AUTOINCREMENT%'",
    " AND name NOT IN (SELECT name FROM sqlite_sequence);\n",
    `UPDATE sqlite_sequence SET seq = ${base} WHERE seq < ${base};`,
  ].join("");
}
