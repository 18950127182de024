/**
 * One subscriber's way out: a single slot for the latest message. A message offered while the
 * previous one is still being written replaces whatever waits in the slot, so a subscriber that
 * reads slowly gets the latest state when it reads again, never a backlog of old ones.
 */
export class LatestSlot {
  private waiting: Uint8Array | null = null;
  private writing = false;
  private open = true;

  /** `write` resolves when the chunk is taken (rejects when the subscriber is gone); `closed` runs once. */
  constructor(
    private readonly write: (chunk: Uint8Array) => Promise<void>,
    private readonly closed: () => void,
  ) {}

  get isOpen(): boolean {
    return this.open;
  }

  /** Sends `chunk` next, in place of any message still waiting. */
  offer(chunk: Uint8Array): void {
    if (!this.open) return;
    this.waiting = chunk;
    if (!this.writing) void this.pump();
  }

  /** Sends `chunk` only when nothing is being written or waiting (a keep-alive never displaces a state). */
  offerIfIdle(chunk: Uint8Array): void {
    if (!this.writing && this.waiting === null) this.offer(chunk);
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.waiting = null;
    this.closed();
  }

  private async pump(): Promise<void> {
    this.writing = true;
    try {
      while (this.open && this.waiting !== null) {
        const chunk = this.waiting;
        this.waiting = null;
        await this.write(chunk);
      }
    } catch {
      this.close();
    } finally {
      this.writing = false;
    }
  }
}
