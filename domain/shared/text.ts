// NUL and unpaired surrogates are valid in a JS string but not in Postgres text or jsonb.
const SUSPECT = /[\u0000\ud800-\udfff]/;
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether Postgres can store `text`: no NUL character and no unpaired UTF-16 surrogate. */
export function isStorableText(text: string): boolean {
  // Almost every string has neither: one cheap scan, the exact check only for the rest.
  return !SUSPECT.test(text) || !UNSTORABLE.test(text);
}

/**
 * Whether `text` has more than `max` characters, counted as code points (an emoji is one, as a
 * user counts it, not two UTF-16 units). Most strings are decided by their length alone.
 */
export function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  if (text.length > 2 * max) return true;
  let count = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
    }
    count += 1;
    if (count > max) return true;
  }
  return false;
}
