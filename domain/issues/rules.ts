/** Errors of one session within this long after its first error are one burst, grouped into the first error's issue. */
export const BURST_WINDOW_MS = 5_000;

/** A fingerprint is scoped by its app and dev flag: dev and production, or two apps, never share an issue. */
export const scopedFingerprint = (appId: string, isDev: boolean, fingerprint: string): string => `${appId}|${isDev ? "dev" : "prod"}|${fingerprint}`;
