const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** A timestamp as the reader's local date and time, the way every list and detail shows one. */
export const formatDateTime = (iso: string): string => dateTime.format(new Date(iso));

/** The same inside a `<time>` element, which keeps the exact instant for machines and tooltips. */
export function When({ at }: { at: string }) {
  return <time dateTime={at}>{formatDateTime(at)}</time>;
}
