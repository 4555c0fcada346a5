import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * The dashboard bundle: built into dist/dashboard (apps/api/plugins/dashboard.ts serves it at
 * /dashboard) by `npm run build`. Assets are content-hashed under assets/, which is what lets the
 * service cache them for a year.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: "/dashboard/",
  plugins: [react()],
  build: {
    outDir: "../../dist/dashboard",
    emptyOutDir: true,
    assetsDir: "assets",
    sourcemap: false,
    rolldownOptions: {
      output: {
        // Libraries change far less often than the pages: in chunks of their own, a release of
        // the dashboard leaves them cached (their names only change when their content does).
        codeSplitting: {
          groups: [
            { name: "charts", test: /node_modules[\\/](recharts|d3-|victory-vendor|@reduxjs|immer|reselect|decimal\.js|es-toolkit|eventemitter3)/ },
            { name: "react", test: /node_modules[\\/](react|react-dom|react-router|scheduler|@tanstack|openapi-fetch|cookie|set-cookie-parser)[\\/]/ },
          ],
        },
      },
    },
  },
  // `npm run dashboard:dev` proxies the API to a service started with `npm start`.
  server: { proxy: { "/v1": "http://127.0.0.1:8080" } },
});
