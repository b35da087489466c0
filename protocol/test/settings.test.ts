import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AbsoluteUrl,
  describeSettingsError,
  editDistance,
  HttpsOrLoopbackUrl,
  HttpUrl,
  jsonPath,
  likelyMeant,
  SecretHttpsOrLoopbackUrl,
} from "../src";

/** The one message a schema gives for a value, or undefined when it accepts it. */
const problem = (schema: z.ZodType, value: unknown): string | undefined => {
  const r = schema.safeParse(value);
  return r.success ? undefined : r.error.issues.map((i) => i.message).join(" | ");
};

describe("URL settings", () => {
  it.each([
    ["htp:/x", '"htp:/x"'],
    ["not a url", '"not a url"'],
    ["https//x.example.com", '"https//x.example.com"'],
    ["mailto:ops@example.com", '"mailto:ops@example.com"'],
  ])(
    "say %s is not a valid URL, quoting it, in one message and never zod's bare 'Invalid URL'",
    (v, shown) => {
      for (const schema of [HttpsOrLoopbackUrl, HttpUrl])
        expect(problem(schema, v)).toBe(`not a valid URL (${shown})`);
    },
  );

  it("quote a URL with its tokens and password redacted", () => {
    const message = problem(HttpUrl, "htp://user:hunter2hunter2@x/?code=abcdefghijklmnop") ?? "";
    expect(message).toMatch(/^not a valid URL \(/);
    expect(message).not.toContain("hunter2hunter2");
    expect(message).not.toContain("abcdefghijklmnop");
  });

  it("never quote a URL that is itself a secret (a webhook's)", () => {
    const message = problem(SecretHttpsOrLoopbackUrl, "htps://hooks.example.com/T0/B0/Xsecretpath");
    expect(message).toBe("not a valid URL (the value is a secret: not shown)");
  });

  it("keep the https rule's message for a valid URL over plain http to a remote host", () => {
    expect(problem(HttpsOrLoopbackUrl, "http://10.0.0.4/")).toMatch(/^must be https \(plain http/);
    expect(problem(HttpUrl, "http://10.0.0.4/")).toBeUndefined();
  });

  it("take an audience of any scheme, but still a URL", () => {
    expect(problem(AbsoluteUrl, "api://quiesce")).toBeUndefined();
    expect(problem(AbsoluteUrl, "quiesce")).toBe('not a valid URL ("quiesce")');
  });
});

describe("settings errors", () => {
  it("name the setting, then the path inside its JSON value as JavaScript writes it", () => {
    const schema = z.object({
      QUIESCE_POLICY: z.object({
        clusters: z.record(z.string(), z.object({ gates: z.array(z.object({ url: HttpUrl })) })),
      }),
      QUIESCE_DEBUG: z.boolean(),
    });
    const r = schema.safeParse({
      QUIESCE_POLICY: { clusters: { web: { gates: [{ url: "htp:/x" }] } } },
      QUIESCE_DEBUG: "maybe",
    });
    expect(r.success).toBe(false);
    expect(describeSettingsError((r as { error: z.ZodError }).error)).toBe(
      'QUIESCE_POLICY: clusters.web.gates[0].url: not a valid URL ("htp:/x"); QUIESCE_DEBUG: Invalid input: expected boolean, received string',
    );
  });

  it("bracket a key that is not an identifier, so the path reads back unambiguously", () => {
    expect(jsonPath(["clusters", "web-1.eu", "gates", 2])).toBe('clusters["web-1.eu"].gates[2]');
  });
});

describe("misspelled setting names", () => {
  const known = ["QUIESCE_DRAIN_COMMAND", "QUIESCE_DEBUG", "QUIESCE_CLUSTER"];

  it("count a swap of two neighbours as one edit", () => {
    expect(editDistance("DEBGU", "DEBUG")).toBe(1);
    expect(editDistance("COMAND", "COMMAND")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
  });

  it("suggest the setting within one edit of a short name, two of a long one, any case", () => {
    expect(likelyMeant("QUIESCE_DRAIN_COMAND", known)).toBe("QUIESCE_DRAIN_COMMAND");
    expect(likelyMeant("QUIESCE_DRAN_COMAND", known)).toBe("QUIESCE_DRAIN_COMMAND");
    expect(likelyMeant("QUIESCE_DEBGU", known)).toBe("QUIESCE_DEBUG");
    expect(likelyMeant("quiesce_cluster", known)).toBe("QUIESCE_CLUSTER");
  });

  it("suggest nothing for a known name, or one far from every setting (another program's)", () => {
    expect(likelyMeant("QUIESCE_DEBUG", known)).toBeUndefined();
    expect(likelyMeant("QUIESCE_DEBUGGER", known)).toBeUndefined();
    expect(likelyMeant("QUIESCE_URL", known)).toBeUndefined();
  });
});
