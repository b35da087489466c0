export function brotliPacked(code: Uint8Array, cacheDir: string): Buffer;
