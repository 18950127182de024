/**
 * Moving an organizer to another organizer group: freeze, copy, verify, switch, delete, each
 * step safe to run again; where a run stopped is read from the directory row (moving_to,
 * data_group). The SQL runs through an executor (the CLI's wrangler, the tests' D1 bindings);
 * docs/scaling.md "Moving an organizer".
 */
import { groupBinding, ID_RANGE } from "../../lib/group-names.ts";
import { MOVED_TABLES, type TableRule, whereOf } from "./registry.ts";

type Row = Record<string, unknown>;
/** Runs statements on a database binding (DIRECTORY, DB, DB_<n>) as one batch; each statement's rows. */
export type Executor = (binding: string, statements: string[]) => Promise<Row[][]>;

export type MoveOptions = {
  slug: string;
  to: number;
  /** The organizer groups the deployment has a database for. */
  groups: number[];
  execute: Executor;
  /** Seconds to wait after the freeze and after the switch (the isolates' cached routes expire). */
  waitSeconds: number;
  sleep?: (ms: number) => Promise<void>;
  log?: (line: string) => void;
};

/** A move the operator has to decide about (already there, moving elsewhere, a user conflict...). */
export class MoveRefused extends Error {}

/** Statements per executor call stay below D1's statement size limit. */
const CHUNK_CHARS = 90_000;

export function sqlValue(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`cannot copy the number ${value}`);
    return String(value);
  }
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "boolean") return value ? "1" : "0";
  if (typeof value === "string") return `'${value.replace(/'/g, "''")}'`;
  if (Array.isArray(value) || value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
    const bytes = Array.isArray(value) ? value : [...new Uint8Array(value as ArrayBuffer)];
    return `X'${bytes.map((b) => Number(b).toString(16).padStart(2, "0")).join("")}'`;
  }
  throw new Error(`cannot copy the value ${JSON.stringify(value)}`);
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

function insertStatement(table: string, row: Row): string {
  const columns = Object.keys(row);
  return `INSERT INTO ${quoted(table)} (${columns.map(quoted).join(", ")}) VALUES (${columns.map((c) => sqlValue(row[c])).join(", ")})`;
}

/** Statements grouped into calls below the size limit. */
export function chunked(statements: string[], limit = CHUNK_CHARS): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const s of statements) {
    if (current.length && size + s.length > limit) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(s);
    size += s.length + 2;
  }
  if (current.length) chunks.push(current);
  return chunks;
}

type Entry = { id: number; data_group: number; moving_to: number | null };

async function entryOf(o: MoveOptions): Promise<Entry> {
  const [rows] = await o.execute("DIRECTORY", [
    `SELECT id, data_group, moving_to FROM directory_organizers WHERE slug = ${sqlValue(o.slug)}`,
  ]);
  const row = rows?.[0];
  if (!row) throw new MoveRefused(`no organizer with the slug "${o.slug}" in the directory`);
  return {
    id: Number(row.id),
    data_group: Number(row.data_group),
    moving_to: row.moving_to === null || row.moving_to === undefined ? null : Number(row.moving_to),
  };
}

const selectRows = (rule: TableRule, id: number) =>
  `SELECT * FROM ${quoted(rule.table)} WHERE ${whereOf(rule, id)} ORDER BY rowid`;

/** Deletes the organizer's rows from a group's database (children first; shared users stay). */
export async function deleteOrganizerRows(execute: Executor, group: number, id: number): Promise<void> {
  const statements = [...MOVED_TABLES]
    .reverse()
    .filter((r) => r.kind !== "shared")
    .map((r) => `DELETE FROM ${quoted(r.table)} WHERE ${whereOf(r, id)}`);
  // in a few calls, so that a large organizer's deletes are not one long transaction
  for (const part of chunked(statements, 4_000)) await execute(groupBinding(group), part);
}

const USERS = MOVED_TABLES.find((r) => r.kind === "shared")!;

/** The organizer's users that the target lacks; a user of the same email but another id there stops the move. */
async function usersToCopy(o: MoveOptions, id: number, from: string, to: string): Promise<Row[]> {
  const [users = []] = await o.execute(from, [selectRows(USERS, id)]);
  if (!users.length) return [];
  const emails = users.map((u) => sqlValue(u.email)).join(", ");
  const ids = users.map((u) => sqlValue(u.id)).join(", ");
  const [present = []] = await o.execute(to, [
    `SELECT * FROM users WHERE id IN (${ids}) OR lower(email) IN (${emails.toLowerCase()}) ORDER BY id`,
  ]);
  const missing: Row[] = [];
  for (const user of users) {
    const same = present.find((p) => p.id === user.id);
    const clash = present.find(
      (p) => p.id !== user.id && String(p.email).toLowerCase() === String(user.email).toLowerCase(),
    );
    if (clash)
      throw new MoveRefused(
        `the user ${user.email} (id ${user.id}) is user id ${clash.id} in ${to}: the same person under two ids; nothing was switched (docs/scaling.md, "Moving an organizer")`,
      );
    if (same && String(same.email).toLowerCase() !== String(user.email).toLowerCase())
      throw new MoveRefused(`the user id ${user.id} is another person (${same.email}) in ${to}`);
    if (!same) missing.push(user);
  }
  return missing;
}

async function copyUsers(o: MoveOptions, id: number, from: string, to: string): Promise<void> {
  const missing = await usersToCopy(o, id, from, to);
  for (const part of chunked(missing.map((u) => insertStatement("users", u)))) await o.execute(to, part);
}

/**
 * SQLite gives a new row of an AUTOINCREMENT table the larger of its counter and the table's
 * highest id, plus one: rows copied in with ids above the target group's range would make the
 * target hand out ids of another group's range. Such a move is refused before anything changes.
 */
async function refuseIdsAboveRange(o: MoveOptions, id: number, from: number, to: number): Promise<void> {
  const [counted = []] = await o.execute(groupBinding(to), ["SELECT name FROM sqlite_sequence"]);
  const counters = new Set(counted.map((r) => String(r.name)));
  const rules = MOVED_TABLES.filter((r) => r.kind !== "derived" && counters.has(r.table));
  const statements = rules.map(
    (r) => `SELECT ${sqlValue(r.table)} AS t, max(rowid) AS m FROM ${quoted(r.table)} WHERE ${whereOf(r, id)}`,
  );
  const end = to * ID_RANGE;
  const above: string[] = [];
  for (const part of chunked(statements)) {
    for (const [row] of await o.execute(groupBinding(from), part))
      if (row && typeof row.m === "number" && row.m > end) above.push(String(row.t));
  }
  if (above.length)
    throw new MoveRefused(
      `"${o.slug}" has rows with ids above group ${to}'s range (${above.join(", ")}): it can move to group ${to} only while its ids are in that range or below (docs/scaling.md, "Moving an organizer"); nothing was changed`,
    );
}

/** Each rule's rows of the organizer in one database, read in as few calls as the size limit allows. */
async function readAll(o: MoveOptions, binding: string, rules: TableRule[], id: number): Promise<Row[][]> {
  const out: Row[][] = [];
  for (const part of chunked(rules.map((r) => selectRows(r, id)))) out.push(...(await o.execute(binding, part)));
  return out;
}

async function copy(o: MoveOptions, id: number, from: number, to: number): Promise<void> {
  const source = groupBinding(from);
  const target = groupBinding(to);
  o.log?.(`copy: removing what an earlier attempt left in ${target}`);
  await deleteOrganizerRows(o.execute, to, id);
  await copyUsers(o, id, source, target);
  const owned = MOVED_TABLES.filter((r) => r.kind === "owned");
  const read = await readAll(o, source, owned, id);
  const inserts = owned.flatMap((rule, i) => (read[i] ?? []).map((r) => insertStatement(rule.table, r)));
  for (const part of chunked(inserts)) await o.execute(target, part);
  const total = inserts.length;
  o.log?.(`copied: ${total} rows from ${source} to ${target}`);
}

/** Every owned row is in the target as in the source; the organizer's users are there too. */
async function verify(o: MoveOptions, id: number, from: number, to: number): Promise<void> {
  const source = groupBinding(from);
  const target = groupBinding(to);
  o.log?.(`verify: comparing the organizer's rows in ${source} and ${target}`);
  const rules = MOVED_TABLES.filter((r) => r.kind !== "derived");
  const inSource = await readAll(o, source, rules, id);
  const inTarget = await readAll(o, target, rules, id);
  for (const [i, rule] of rules.entries()) {
    const a = inSource[i] ?? [];
    const b = inTarget[i] ?? [];
    const same =
      rule.kind === "shared"
        ? a.every((row) => b.some((t) => canonical(t) === canonical(row)))
        : a.length === b.length && a.every((row, i) => canonical(row) === canonical(b[i]!));
    if (!same)
      throw new Error(
        `verify: ${rule.table} differs between ${source} (${a.length} rows) and ${target} (${b.length} rows); run the move again`,
      );
  }
  o.log?.(`verified: every table of the organizer is the same in ${target}`);
}

function canonical(row: Row): string {
  return JSON.stringify(
    Object.keys(row)
      .sort()
      .map((k) => [k, row[k]]),
  );
}

const pause = (o: MoveOptions, why: string) => {
  if (o.waitSeconds <= 0) return Promise.resolve();
  o.log?.(`waiting ${o.waitSeconds} s (${why})`);
  return (o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))))(o.waitSeconds * 1000);
};

/** Runs the move from wherever an earlier run stopped; resolves when the organizer is in `to` only. */
export async function moveOrganizer(o: MoveOptions): Promise<void> {
  if (!o.groups.includes(o.to))
    throw new MoveRefused(`group ${o.to} is not an organizer group of this deployment (${o.groups.join(", ")})`);
  let entry = await entryOf(o);
  const id = entry.id;
  if (entry.moving_to === null && entry.data_group === o.to) {
    // moved already: a run that stopped after the switch left rows in another group
    const left: number[] = [];
    for (const g of o.groups.filter((g) => g !== o.to)) {
      const [rows = []] = await o.execute(groupBinding(g), [`SELECT id FROM organizers WHERE id = ${id}`]);
      if (rows.length) left.push(g);
    }
    if (!left.length) throw new MoveRefused(`"${o.slug}" is in group ${o.to} already`);
    for (const g of left) {
      o.log?.(`delete: the organizer's rows from ${groupBinding(g)} (the switch was done)`);
      await deleteOrganizerRows(o.execute, g, id);
    }
    o.log?.(`done: "${o.slug}" is in group ${o.to}`);
    return;
  }
  if (entry.moving_to !== null && entry.moving_to !== o.to)
    throw new MoveRefused(`"${o.slug}" is being moved to group ${entry.moving_to}: finish that move first`);
  const from = entry.data_group;
  // what would stop the copy is refused before the freeze, so that it leaves nothing frozen
  await refuseIdsAboveRange(o, id, from, o.to);
  await usersToCopy(o, id, groupBinding(from), groupBinding(o.to));
  if (entry.moving_to === null) {
    o.log?.(`freeze: "${o.slug}" (id ${id}) in group ${from} takes no writes until the switch`);
    await o.execute("DIRECTORY", [
      `UPDATE directory_organizers SET moving_to = ${o.to} WHERE id = ${id} AND moving_to IS NULL`,
    ]);
    entry = await entryOf(o);
    if (entry.moving_to !== o.to) throw new MoveRefused(`"${o.slug}" could not be frozen; run the move again`);
  } else o.log?.(`freeze: "${o.slug}" (id ${id}) is frozen already, moving from group ${from} to ${o.to}`);
  await pause(o, "until every isolate's cached route says moving");
  await copy(o, id, from, o.to);
  await verify(o, id, from, o.to);
  o.log?.(`switch: the directory says group ${o.to}`);
  await o.execute("DIRECTORY", [
    `UPDATE directory_organizers SET data_group = ${o.to}, moving_to = NULL WHERE id = ${id} AND moving_to = ${o.to}`,
  ]);
  await pause(o, "until no isolate routes to the old group");
  o.log?.(`delete: the organizer's rows from ${groupBinding(from)}`);
  await deleteOrganizerRows(o.execute, from, id);
  o.log?.(`done: "${o.slug}" is in group ${o.to}`);
}
