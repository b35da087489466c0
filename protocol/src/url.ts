import { z } from "zod";

/**
 * A URL the coordinator calls out to (a webhook, an HTTP gate): https, or plain http only to a
 * loopback target (tests, `npm start`), so no secret or probe ever crosses a network in clear.
 */
export const HttpsOrLoopbackUrl = z.url().refine((u) => {
  const { protocol, hostname } = new URL(u);
  return (
    protocol === "https:" ||
    (protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(hostname))
  );
}, "must be https (http only to 127.0.0.1 / localhost)");
