import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

const src = (pkg: string) => resolve(__dirname, pkg, "src/index.ts");

export default defineConfig({
  resolve: {
    alias: {
      "@quiesce/shared": src("shared"),
      "@quiesce/functions": src("functions"),
      "@quiesce/relay": src("relay"),
      "@quiesce/fabric-simulator": src("fabric-simulator"),
      "@quiesce/demo": src("demo"),
      "@quiesce/cli": src("cli"),
    },
  },
  test: {
    include: ["**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
