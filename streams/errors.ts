/** The aggregate moved on since it was read: reload and decide again, or answer 409. */
export class ConcurrencyError extends Error {
  override name = "ConcurrencyError";
  constructor(
    readonly subject: string,
    readonly expected: number,
    readonly actual: number | undefined,
  ) {
    super(`${subject} is at sequence ${actual ?? "?"}, expected ${expected}`);
  }
}

/** NATS could not take the write (down, restarting, no JetStream leader): answered as 503. */
export class LogUnavailableError extends Error {
  override name = "LogUnavailableError";
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}
