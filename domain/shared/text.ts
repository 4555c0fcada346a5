// NUL and unpaired surrogates are valid in a JS string but not in Postgres text or jsonb.
const SUSPECT = /[\u0000\ud800-\udfff]/;
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether Postgres can store `text`: no NUL character and no unpaired UTF-16 surrogate. */
export function isStorableText(text: string): boolean {
  // Almost every string has neither: one cheap scan, the exact check only for the rest.
  return !SUSPECT.test(text) || !UNSTORABLE.test(text);
}
