import { describe, expect, it } from "vitest";
import { attachmentDisposition } from "./content-disposition.ts";

describe("attachmentDisposition", () => {
  it("quotes a plain ASCII name as it is", () => {
    expect(attachmentDisposition("crash log (1).txt")).toBe('attachment; filename="crash log (1).txt"');
  });

  it("replaces quotes and backslashes in the quoted name and gives the exact name as filename*", () => {
    expect(attachmentDisposition('a"b\\c.txt')).toBe(`attachment; filename="a_b_c.txt"; filename*=UTF-8''a%22b%5Cc.txt`);
  });

  it("encodes non-ASCII names as UTF-8 for filename* with an ASCII fallback", () => {
    expect(attachmentDisposition("résumé ✓.pdf")).toBe(`attachment; filename="r_sum_ _.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%E2%9C%93.pdf`);
    expect(attachmentDisposition("😀's.png")).toBe(`attachment; filename="_'s.png"; filename*=UTF-8''%F0%9F%98%80%27s.png`);
  });
});
