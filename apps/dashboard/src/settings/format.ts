const date = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

export { formatDateTime } from "../ui/format.tsx";
export const formatDate = (iso: string) => date.format(new Date(iso));

/** Quotas are stored in bytes and typed in MiB, the unit their defaults (250 and 5120) are round in. */
export const MIB = 1_048_576;
export const formatMib = (bytes: number) => `${new Intl.NumberFormat().format(Math.round(bytes / MIB))} MB`;

/**
 * A key as lists show it: its type prefix and last four characters. Lists never show a whole
 * secret (a screen shared in a call leaks nothing); the API masks some secrets the same way.
 */
export function maskedSecret(secret: string): string {
  if (secret.includes("...")) return secret.replace("...", "…");
  const prefix = /^svc_[a-z]+_/.exec(secret)?.[0] ?? "";
  return `${prefix}…${secret.slice(-4)}`;
}

/** The message of a failed mutation, for an inline alert. */
export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
