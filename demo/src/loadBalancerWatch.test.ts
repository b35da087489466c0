import type { LoadBalancerView } from "@quiesce/fabric-simulator";
import { describe, expect, it } from "vitest";
import { LoadBalancerWatch, renderBackends } from "./loadBalancerWatch";

type Backend = { vm: string; adminState: "None" | "Up" | "Down"; routed: number; dropped: number };

const view = (...backends: Backend[]): LoadBalancerView[] => [
  {
    name: "lb-web",
    id: "/lb",
    requestsPerSecond: 10,
    probeSeconds: 15,
    total: 0,
    unrouted: 0,
    pools: [
      {
        name: "web",
        id: "/pool",
        etag: "e",
        backends: backends.map((b) => ({
          ...b,
          address: `${b.vm}_ipconfig1`,
          ipConfigurationId: "/ip",
        })),
      },
    ],
  },
];

describe("load balancer watch", () => {
  it("says when a backend goes Down and back, with what it was sent while Down", () => {
    const w = new LoadBalancerWatch();
    expect(
      w.observe(view({ vm: "web-0", adminState: "None", routed: 100, dropped: 0 }), 0),
    ).toEqual([]);
    const down = w.observe(
      view({ vm: "web-0", adminState: "Down", routed: 120, dropped: 0 }),
      1_000,
    );
    expect(down).toEqual([
      "Azure  lb-web/web: web-0 admin state None → Down: the load balancer sends it no new requests (120 routed to it so far, 0 dropped)",
    ]);
    expect(
      w.observe(view({ vm: "web-0", adminState: "Down", routed: 120, dropped: 0 }), 5_000),
    ).toEqual([]);
    // Back, and already sent 7 more by the time it is seen: those came after, not while Down.
    const up = w.observe(view({ vm: "web-0", adminState: "None", routed: 127, dropped: 0 }), 9_000);
    expect(up).toEqual([
      "Azure  lb-web/web: web-0 admin state Down → None after 8 s: 0 new requests while Down, 0 dropped; it takes traffic again",
    ]);
    expect(w.rows(9_000)).toEqual([
      {
        pool: "lb-web/web",
        vm: "web-0",
        adminState: "None",
        routed: 127,
        dropped: 0,
        timesDown: 1,
        secondsDown: 8,
        routedWhileDown: 0,
      },
    ]);
  });

  it("counts requests a Down backend was still sent, and reports drops once they stop growing", () => {
    const w = new LoadBalancerWatch();
    w.observe(
      view(
        { vm: "a", adminState: "Down", routed: 10, dropped: 0 },
        { vm: "b", adminState: "None", routed: 10, dropped: 0 },
      ),
      0,
    );
    w.observe(
      view(
        { vm: "a", adminState: "Down", routed: 13, dropped: 0 },
        { vm: "b", adminState: "None", routed: 20, dropped: 4 },
      ),
      500,
    );
    const lines = w.observe(
      view(
        { vm: "a", adminState: "Down", routed: 13, dropped: 0 },
        { vm: "b", adminState: "None", routed: 24, dropped: 4 },
      ),
      1_000,
    );
    expect(lines).toEqual([
      "Azure  lb-web/web: b dropped 4 requests: its VM went down while the load balancer still sent it traffic (admin state None, until the health probe noticed)",
    ]);
    const rows = w.rows(2_000);
    expect(rows[0]).toMatchObject({ vm: "a", timesDown: 1, secondsDown: 2, routedWhileDown: 3 });
    const text = renderBackends(rows);
    expect(text[0]).toMatch(
      /^backend\s+admin state\s+routed\s+dropped\s+set Down\s+new requests while Down$/,
    );
    expect(text[1]).toMatch(/^lb-web\/web a\s+Down\s+13\s+0\s+1× \(2 s\)\s+3$/);
    expect(text[2]).toMatch(/^lb-web\/web b\s+None\s+24\s+4\s+-\s+-$/);
    expect(renderBackends([])).toEqual([]);
  });
});
