/** Attachment limits and lifetimes (SPEC, Limits), in one place for the API, the decider and the cleanup. */

export const MAX_FILENAME_CHARS = 255;

/** A reservation's upload URL is good for a day; a reservation still without bytes then is purged. */
export const RESERVATION_TTL_MS = 24 * 60 * 60 * 1000;

/** A soft-deleted attachment keeps its row and bytes this long before the cleanup purges both. */
export const DELETED_GRACE_MS = 7 * 24 * 60 * 60 * 1000;

/** How long a signed download URL works. */
export const DOWNLOAD_URL_TTL_SECONDS = 60;

/**
 * Stored objects no live attachment points at are removed once at least this old: an upload in
 * progress writes its object before the fact that names it, and must never lose it meanwhile.
 */
export const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;

/** `sha256` as sent: 64 hex digits in either case; stored and compared lower-case. */
export const SHA256_PATTERN = /^[0-9a-fA-F]{64}$/;

/**
 * A media type as `Content-Type` carries it: `type/subtype` of RFC 7230 token characters,
 * optionally followed by parameters of printable ASCII. It is sent back as the download's
 * `Content-Type` header, so nothing that could break a header line (control characters) gets in.
 */
export const CONTENT_TYPE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\s*;[\x20-\x7e]*)?$/;
export const MAX_CONTENT_TYPE_CHARS = 255;

/** Control characters have no place in a file name and would need escaping in every header and log line. */
export const FILENAME_CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;
