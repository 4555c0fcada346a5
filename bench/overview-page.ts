import { openBrowser } from "../test/support/browser.ts";
import { Samples } from "./stats.ts";

/** The overview's ranges the bench opens, as the page names them in `?range=`. */
const RANGES = ["24h", "7d", "30d"] as const;

export type OverviewPageFigures = {
  /** Each range's loads: from navigation to the charts drawn and every tile's figure shown. */
  ranges: Record<(typeof RANGES)[number], ReturnType<Samples["summary"]>>;
  /** The first load of all, before the browser holds the bundle: a first visit. */
  first_visit_ms: number;
};

/**
 * The dashboard's overview of a project in Debian's chromium, signed in by the `token` cookie,
 * reloaded `loads` times per range: a reload starts the app afresh (no cached answers, the hashed
 * bundle from the browser's cache), and the time runs until the events chart has drawn its bars
 * and the tiles show their figures, as a person waiting for the page sees it.
 */
export async function measureOverviewPage(input: { baseUrl: string; token: string; projectId: string; loads: number }): Promise<OverviewPageFigures> {
  const browser = await openBrowser();
  try {
    await browser.context.addCookies([{ name: "token", value: input.token, url: input.baseUrl, httpOnly: true, sameSite: "Lax" }]);
    const { page } = browser;
    const drawn = () =>
      page.waitForFunction(
        () => {
          const bars = document.querySelectorAll("[data-chart=events] .recharts-bar-rectangle").length;
          const figures = ["events", "errors", "active-users", "open-issues"].map((name) => document.querySelector(`[data-figure=${name}]`)?.textContent ?? "");
          return bars > 0 && figures.every((figure) => figure !== "");
        },
        undefined,
        { polling: "raf", timeout: 60_000 },
      );
    // Answers other than 2xx, to say why a load never finished drawing.
    const failures: string[] = [];
    page.on("response", (response) => {
      if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
    });
    const load = async (range: string) => {
      const started = performance.now();
      await page.goto(`${input.baseUrl}/dashboard/?project=${input.projectId}&range=${range}&mode=all`);
      await drawn().catch(async (error: Error) => {
        const shown = (await page.locator("main").textContent().catch(() => ""))?.replace(/\s+/g, " ").slice(0, 600);
        throw new Error(`the overview (${range}) did not finish drawing: ${error.message}\nfailed answers: ${failures.slice(-10).join(", ") || "none"}\npage: ${shown}`);
      });
      return performance.now() - started;
    };

    const first_visit_ms = Math.round(await load("24h"));
    const ranges = {} as OverviewPageFigures["ranges"];
    for (const range of RANGES) {
      const samples = new Samples();
      await load(range); // warm-up: the statement plans of this range's queries
      for (let index = 0; index < input.loads; index += 1) samples.add(await load(range));
      ranges[range] = samples.summary();
    }
    return { ranges, first_visit_ms };
  } finally {
    await browser.close();
  }
}
