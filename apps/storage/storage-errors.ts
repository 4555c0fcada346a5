/** A body went past the byte limit of a put; nothing was stored. */
export class ObjectTooLargeError extends Error {
  override name = "ObjectTooLargeError";

  constructor(readonly maxBytes: number) {
    super(`the body is larger than ${maxBytes} bytes`);
  }
}

/** A key outside the shape `segment(/segment)*` with segments of `[A-Za-z0-9_-]`: a programming error, never a client's. */
export class InvalidObjectKeyError extends Error {
  override name = "InvalidObjectKeyError";

  constructor(key: string) {
    super(`invalid object key ${JSON.stringify(key.slice(0, 200))}`);
  }
}
