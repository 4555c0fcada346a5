/**
 * The kind of a DOMAIN subject, `<ns>.d.<kind>.<id>` (`issues`, `feedback`, `team`, …): how a read
 * model tells its own facts from the others before decoding anything.
 */
export const subjectKindOf = (subject: string): string | undefined => subject.split(".", 3)[2];
