/** Kept equal to cli/package.json "version" by a test; the bundle carries no package.json. */
export const CLI_VERSION = "0.1.0";
