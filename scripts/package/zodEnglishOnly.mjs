// zod 4 re-exports every locale it ships (z.locales, z.core.locales: ~370 KB, a fifth of what the
// Function app's app.js would parse at start-up) from the namespace the app imports as `z`, so
// esbuild cannot leave them out. The app never calls z.config(z.locales.xx()); its messages are
// English, which zod registers from locales/en.js directly. This plugin hands zod a locales
// module holding English only. test/infra/package.test.ts checks the package's app.js.
import { dirname, join } from "node:path";

export function zodEnglishOnly() {
  return {
    name: "zod-english-only",
    setup(b) {
      b.onResolve({ filter: /[\\/]locales[\\/]index\.js$/ }, (args) =>
        /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
          ? { path: join(dirname(args.importer), args.path), namespace: "zod-english-only" }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
        contents: 'export { default as en } from "./en.js";\n',
        resolveDir: dirname(args.path),
        loader: "js",
      }));
    },
  };
}
