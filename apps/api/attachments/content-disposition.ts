/**
 * `Content-Disposition: attachment` for a stored file name: a quoted ASCII `filename` every client
 * reads (characters outside printable ASCII, quotes and backslashes become `_`), and, when the
 * name is not plain ASCII, the exact name as RFC 5987 `filename*` (UTF-8, percent-encoded), which
 * browsers prefer. The result is always a valid header value, whatever the name holds.
 */
export function attachmentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/gu, "_");
  const plain = `attachment; filename="${fallback}"`;
  return fallback === filename ? plain : `${plain}; filename*=UTF-8''${encodeRfc5987(filename)}`;
}

/** Percent-encodes every byte outside RFC 5987's attr-char set. */
function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}
