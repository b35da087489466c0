import { describe, expect, it } from "vitest";
import { ROUTES } from "../routes";
import { matchRoute } from "./router";

describe("local host router", () => {
  it("matches the Functions route templates and decodes parameters", () => {
    const m = matchRoute(ROUTES, "api", "POST", "/api/events/ab%2Fc%20d/force-approve");
    expect(m).toMatchObject({ route: { handler: "forceApprove" }, params: { eventId: "ab/c d" } });
    expect(matchRoute(ROUTES, "api", "GET", "/api/status")).toMatchObject({
      route: { handler: "status" },
    });
  });

  it("answers 404 for unknown paths, 405 for a wrong method, 400 for a malformed escape", () => {
    expect(matchRoute(ROUTES, "api", "GET", "/api/nope")).toEqual({ error: 404 });
    expect(matchRoute(ROUTES, "api", "GET", "/status")).toEqual({ error: 404 });
    expect(matchRoute(ROUTES, "api", "DELETE", "/api/status")).toEqual({ error: 405 });
    expect(matchRoute(ROUTES, "api", "GET", "/api/events/%E0%A4%A")).toEqual({ error: 400 });
  });
});
