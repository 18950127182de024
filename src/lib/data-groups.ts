/**
 * Organizer groups: each group's data lives in its own D1 database (binding `DB` for group 1,
 * `DB_<n>` for group n); the directory database (`DIRECTORY`) says which group an organizer is
 * in (docs/scaling.md, "Organizer groups"). `groupEnv` is the environment of one group: its
 * database as `DB`, and queues whose messages say the group, so consumers come back to it.
 */
import type { Env } from "./env";
import { bindingGroup, groupBinding, ID_RANGE } from "./group-names";

export { groupBinding, ID_RANGE };

/** The group whose id range `id` is in: where a row of that id was created. */
export function groupOfId(id: number): number {
  return Math.floor(Math.max(0, id - 1) / ID_RANGE) + 1;
}

/** A binding (an object); the variables of wrangler.toml are strings. */
function isD1(value: unknown): value is D1Database {
  return typeof value === "object" && value !== null;
}

/** The groups this deployment has a database binding for, in order. */
export function dataGroups(env: object): number[] {
  const groups: number[] = [];
  for (const [name, value] of Object.entries(env)) {
    const group = bindingGroup(name);
    if (group !== null && isD1(value)) groups.push(group);
  }
  return groups.sort((a, b) => a - b);
}

/** The D1 database of a group (an error when the deployment has no binding for it). */
export function groupDatabase(env: object, group: number): D1Database {
  const d1 = (env as Record<string, unknown>)[groupBinding(group)];
  if (!isD1(d1)) throw new Error(`no D1 binding ${groupBinding(group)} for organizer group ${group}`);
  return d1;
}

/** The group an environment works on (group 1 unless `groupEnv` chose another). */
export function currentGroup(env: { DATA_GROUP?: number }): number {
  return env.DATA_GROUP ?? 1;
}

/** A queue whose messages carry `group` (the consumer takes that group's environment). */
function taggedQueue<T extends object>(queue: Queue<T>, group: number): Queue<T> {
  const tag = (body: T): T => ({ ...body, group });
  return {
    send: (body: T, options?: QueueSendOptions) => queue.send(tag(body), options),
    sendBatch: (messages: Iterable<MessageSendRequest<T>>, options?: QueueSendBatchOptions) =>
      queue.sendBatch(
        [...messages].map((m) => ({ ...m, body: tag(m.body) })),
        options,
      ),
  } as Queue<T>;
}

const envs = new WeakMap<object, Map<number, Env>>();

/** The environment of one group: its database as `DB`, `DATA_GROUP`, and queues that say the group. */
export function groupEnv(env: Env, group: number): Env {
  if (env.DATA_GROUP === group) return env;
  let byGroup = envs.get(env);
  if (!byGroup) envs.set(env, (byGroup = new Map()));
  let out: Env | undefined = byGroup.get(group);
  if (!out) {
    out = {
      ...env,
      DB: groupDatabase(env, group),
      DATA_GROUP: group,
      EXPORTS_QUEUE: taggedQueue(env.EXPORTS_QUEUE, group),
      MAIL_QUEUE: taggedQueue(env.MAIL_QUEUE, group),
      DOCUMENTS_QUEUE: taggedQueue(env.DOCUMENTS_QUEUE, group),
      WEBHOOK_QUEUE: taggedQueue(env.WEBHOOK_QUEUE, group),
    };
    byGroup.set(group, out);
  }
  return out;
}
