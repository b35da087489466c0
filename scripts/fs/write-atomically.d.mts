/** Writes aside, then renames into place (write-atomically.mjs); creates the folder. */
export function writeAtomically(file: string, data: string | Uint8Array): void;
