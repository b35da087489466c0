import { z } from "zod";

// zod compiles object parsers with `new Function` when it may; the page's CSP forbids eval and the
// refused probe is logged as a console error. Imported first, so every schema is built without it.
z.config({ jitless: true });
