// NUL and unpaired surrogates are valid in a JS string but not in Postgres text or jsonb.
const SUSPECT = /[\u0000\ud800-\udfff]/;
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether Postgres can store `text`: no NUL character and no unpaired UTF-16 surrogate. */
export function isStorableText(text: string): boolean {
  // Almost every string has neither: one cheap scan, the exact check only for the rest.
  return !SUSPECT.test(text) || !UNSTORABLE.test(text);
}

/**
 * Where the first `max` characters of `text` end, in UTF-16 units, counting characters as code
 * points (an emoji is one, as a user counts it, not two units); never inside a surrogate pair.
 */
function endOfCharacters(text: string, max: number): number {
  let end = 0;
  for (let count = 0; end < text.length && count < max; count += 1) {
    const code = text.charCodeAt(end);
    const next = text.charCodeAt(end + 1);
    end += code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
  }
  return end;
}

/** `text` cut to `max` characters (code points). */
export const truncate = (text: string, max: number): string => (text.length <= max ? text : text.slice(0, endOfCharacters(text, max)));

/** Whether `text` has more than `max` characters (code points); most strings are decided by their length alone. */
export const longerThan = (text: string, max: number): boolean =>
  text.length > max && (text.length > 2 * max || endOfCharacters(text, max) < text.length);
