/**
 * A queue shard's SQLite (docs/onsale-queue.md): its visitors with their ordering keys and
 * admissions, and one row of state (the settings and the coordinator's last push).
 */
import { compareKeys, quantiles, type QueueKey, type ShardSummary } from "../../rules/queue-order";
import type { Frontier } from "./types";

export type VisitorRow = {
  seq: number;
  nonce: string;
  key: number;
  joined_at: number;
  admitted_at: number | null;
  token: string | null;
};

/** How many keys a shard's summary holds (the others estimate places with them). */
const SUMMARY_POINTS = 64;

export class ShardStore {
  private summaryCache: { count: number; summary: ShardSummary } | null = null;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS visitors (seq INTEGER PRIMARY KEY AUTOINCREMENT, nonce TEXT NOT NULL UNIQUE,
      key REAL NOT NULL, joined_at INTEGER NOT NULL, admitted_at INTEGER, token TEXT)`);
    sql.exec("CREATE INDEX IF NOT EXISTS visitors_waiting ON visitors (admitted_at, key, nonce)");
    sql.exec("CREATE INDEX IF NOT EXISTS visitors_key ON visitors (key, nonce)");
    sql.exec("CREATE TABLE IF NOT EXISTS shard_state (id INTEGER PRIMARY KEY CHECK (id = 1), value TEXT NOT NULL)");
  }

  readState<T>(): T | null {
    const row = [...this.sql.exec<{ value: string }>("SELECT value FROM shard_state WHERE id = 1")][0];
    return row ? (JSON.parse(row.value) as T) : null;
  }

  writeState(value: unknown): void {
    this.sql.exec("INSERT OR REPLACE INTO shard_state (id, value) VALUES (1, ?)", JSON.stringify(value));
  }

  insert(nonce: string, key: number, joinedAt: number): void {
    this.sql.exec("INSERT INTO visitors (nonce, key, joined_at) VALUES (?, ?, ?)", nonce, key, joinedAt);
  }

  visitor(nonce: string): VisitorRow | null {
    return [...this.sql.exec<VisitorRow>("SELECT * FROM visitors WHERE nonce = ?", nonce)][0] ?? null;
  }

  setToken(nonce: string, token: string): void {
    this.sql.exec("UPDATE visitors SET token = ? WHERE nonce = ?", token, nonce);
  }

  /** This shard's visitors whose key comes before `k`. */
  countBefore(k: QueueKey): number {
    return this.sql
      .exec<{ n: number }>("SELECT count(*) AS n FROM visitors WHERE (key, nonce) < (?, ?)", k.key, k.nonce)
      .one().n;
  }

  /** Admits the waiting visitors the frontier covers (idempotent); returns how many it admitted. */
  applyFrontier(f: Frontier): number {
    return this.sql.exec(
      "UPDATE visitors SET admitted_at = ? WHERE admitted_at IS NULL AND seq <= ? AND (key, nonce) <= (?, ?)",
      f.at,
      f.seq,
      f.key,
      f.nonce,
    ).rowsWritten;
  }

  /** The `k` smallest keys of the visitors still waiting, in order, and the last seq this saw. */
  waiting(k: number): { keys: QueueKey[]; maxSeq: number } {
    const maxSeq = this.sql.exec<{ m: number | null }>("SELECT max(seq) AS m FROM visitors").one().m ?? 0;
    const keys =
      k > 0
        ? [
            ...this.sql.exec<QueueKey>(
              "SELECT key, nonce FROM visitors WHERE admitted_at IS NULL AND seq <= ? ORDER BY key, nonce LIMIT ?",
              maxSeq,
              k,
            ),
          ].map((r) => ({ key: r.key, nonce: r.nonce }))
        : [];
    return { keys: keys.sort(compareKeys), maxSeq };
  }

  count(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM visitors").one().n;
  }

  /** The count and key quantiles of every visitor of this shard (kept while the count stays). */
  summary(): ShardSummary {
    const count = this.count();
    if (this.summaryCache?.count === count) return this.summaryCache.summary;
    const keys = [...this.sql.exec<{ key: number }>("SELECT key FROM visitors ORDER BY key")].map((r) => r.key);
    const summary = { count, quantiles: quantiles(keys, SUMMARY_POINTS) };
    this.summaryCache = { count, summary };
    return summary;
  }
}
