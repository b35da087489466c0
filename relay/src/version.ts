/** Kept equal to relay/package.json "version" by a test; the bundle has no package.json. */
export const RELAY_VERSION = "0.1.0";
