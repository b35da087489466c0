import { describe, expect, it } from "vitest";
import { parseCliArgs } from "./args";

describe("CLI arguments", () => {
  it("defaults to port 8080, 60x time scale and the demo topology", () => {
    expect(parseCliArgs([])).toMatchObject({
      port: 8080,
      host: "127.0.0.1",
      timeScale: 60,
      groupSize: 10,
    });
  });

  it("reads every option", () => {
    expect(
      parseCliArgs([
        "--port",
        "0",
        "--time-scale",
        "120",
        "--topology",
        "t.json",
        "--require-all-approvals",
        "--min-started-seconds",
        "3",
      ]),
    ).toMatchObject({
      port: 0,
      timeScale: 120,
      topologyFile: "t.json",
      requireAllApprovals: true,
      minStartedSeconds: 3,
    });
    expect(parseCliArgs(["--vms", "1000", "--group-size", "20"])).toMatchObject({
      vms: 1000,
      groupSize: 20,
    });
  });

  it("rejects bad values and unknown flags", () => {
    expect(() => parseCliArgs(["--time-scale", "0"])).toThrow(/time-scale/);
    expect(() => parseCliArgs(["--port", "70000"])).toThrow(/port/);
    expect(() => parseCliArgs(["--topology", "a", "--vms", "3"])).toThrow(/either/);
    expect(() => parseCliArgs(["--bogus"])).toThrow();
  });
});
