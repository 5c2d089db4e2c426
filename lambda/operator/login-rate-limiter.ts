/**
 * Failed sign-in attempts per source address, counted in this instance's memory over a sliding
 * window. Only failures count, and a source over the limit is refused only for failing attempts:
 * operators behind the same office NAT or mobile carrier address as someone failing keep signing in
 * with their valid links.
 *
 * Why in memory and not a DynamoDB counter: a login token is 256 random bits, so guessing is not
 * the threat the limit answers — it marks a flooding address, at no cost per request. A malformed
 * token is refused without a read; a well-formed one costs the conditional delete that checks it.
 * Lambda may run several instances, so the effective limit is per instance; a flood large enough to
 * matter keeps landing on the same warm instances.
 */
export class LoginRateLimiter {
  private readonly attempts = new Map<string, number[]>();

  constructor(
    private readonly maxAttempts: number,
    private readonly windowMs: number,
    private readonly nowMs: () => number = Date.now,
    /** Bounds the memory a spray of addresses can take. */
    private readonly maxTrackedSources = 10_000,
  ) {}

  /** The seconds until the source is under the limit again, else `undefined` (it is under it now). */
  retryAfter(source: string): number | undefined {
    const recent = this.recent(source);
    if (recent.length < this.maxAttempts) return undefined;
    return Math.max(1, Math.ceil((recent[0] + this.windowMs - this.nowMs()) / 1000));
  }

  recordFailure(source: string): void {
    const recent = this.recent(source);
    if (!this.attempts.has(source) && this.attempts.size >= this.maxTrackedSources) this.attempts.delete(this.attempts.keys().next().value!);
    recent.push(this.nowMs());
    this.attempts.set(source, recent);
  }

  private recent(source: string): number[] {
    const now = this.nowMs();
    return (this.attempts.get(source) ?? []).filter((at) => now - at < this.windowMs);
  }
}
