/**
 * Failed sign-in attempts per source address, counted in this instance's memory over a sliding
 * window; a source over the limit is refused before its token is even looked at. Successful
 * sign-ins are not counted, so a team behind one address is never locked out by its own logins.
 *
 * Why in memory and not a DynamoDB counter: a login token is 256 random bits, so guessing is not
 * the threat the limit answers — it sheds a flood of attempts before each costs a conditional
 * DynamoDB delete, at no cost per request. Lambda may run several instances, so the effective limit
 * is per instance; a flood large enough to matter keeps landing on the same warm instances.
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

  /** The seconds to wait when the source is over the limit, else `undefined`. */
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
