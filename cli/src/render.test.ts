import { describe, expect, it } from "vitest";
import { renderOperatorAnswer } from "./render";
import type { OperatorAnswer } from "./statusClient";

describe("an operator action's outcome in text", () => {
  const answer = (replaced: OperatorAnswer["replaced"]) => ({ replaced });

  it("names the override an action replaced or a release removed", () => {
    const hold = {
      kind: "hold" as const,
      by: "alice",
      reason: "change freeze",
      at: "2026-11-23T04:46:06.691Z",
      expiresAt: "2026-11-23T05:46:06.691Z",
    };
    expect(renderOperatorAnswer("force-approve", "E1", answer(hold))).toBe(
      "force-approve E1: done; replaced the hold by alice (since 2026-11-23T04:46:06.691Z, until 2026-11-23T05:46:06.691Z): change freeze",
    );
    expect(
      renderOperatorAnswer("release", "E1", answer({ ...hold, kind: "forceApprove" })),
    ).toMatch(/^release E1: done; removed the force-approve by alice/);
    expect(renderOperatorAnswer("hold", "E1", answer(null))).toBe("hold E1: done");
  });
});
