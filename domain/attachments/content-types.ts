/**
 * Content types refused at reservation (415): files whose purpose is to run code. An SDK labels
 * its own files, so this is a policy on labels, not a scan of the bytes; what it buys is that the
 * service never hands out something announced as a program. Every download is also sent as
 * `Content-Disposition: attachment` with `X-Content-Type-Options: nosniff`, so no stored file is
 * ever rendered or run in a browser tab of the service's origin, whatever its label.
 *
 * HTML and XHTML are refused too: they are pages that run script when opened, and an attachment
 * of an analytics event (a screenshot, a log, a JSON dump) never needs to be one. SVG stays
 * allowed: it is an image format apps do attach, and the download headers keep it inert.
 */
export const REFUSED_CONTENT_TYPES: readonly string[] = [
  // Native executables, libraries and installers.
  "application/x-msdownload",
  "application/x-executable",
  "application/x-pie-executable",
  "application/x-sharedlib",
  "application/x-mach-binary",
  "application/x-elf",
  "application/x-msdos-program",
  "application/x-ms-dos-executable",
  "application/x-dosexec",
  "application/x-winexe",
  "application/vnd.microsoft.portable-executable",
  "application/x-msi",
  "application/x-ms-installer",
  "application/x-apple-diskimage",
  "application/vnd.apple.installer+xml",
  "application/vnd.android.package-archive",
  "application/java-archive",
  "application/x-java-archive",
  "application/x-java-jnlp-file",
  "application/wasm",
  "application/hta",
  "application/x-ms-shortcut",
  // Shell, batch and interpreter scripts.
  "application/x-sh",
  "application/x-shellscript",
  "text/x-shellscript",
  "text/x-sh",
  "application/x-csh",
  "text/x-csh",
  "application/x-bat",
  "application/x-powershell",
  "text/vbscript",
  "application/x-vbscript",
  "text/javascript",
  "application/javascript",
  "application/x-javascript",
  "text/ecmascript",
  "application/ecmascript",
  "text/x-python",
  "text/x-python-script",
  "application/x-python-code",
  "application/x-python",
  "text/x-perl",
  "application/x-perl",
  "application/x-php",
  "text/x-php",
  "application/x-ruby",
  "text/x-ruby",
  // Pages that run script when opened.
  "text/html",
  "application/xhtml+xml",
];

const REFUSED = new Set(REFUSED_CONTENT_TYPES);

/** `type/subtype` of a content type, lower-case, without parameters (`Text/HTML; charset=utf-8` → `text/html`). */
export const essenceOf = (contentType: string): string => contentType.split(";", 1)[0]!.trim().toLowerCase();

/** Whether reservations with this content type are refused (case and parameters do not matter). */
export const isRefusedContentType = (contentType: string): boolean => REFUSED.has(essenceOf(contentType));
