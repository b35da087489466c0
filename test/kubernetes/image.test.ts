import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { type KubeObject, podSpecOf, renderKustomization } from "./kustomize";

/**
 * The container image (relay/packaging/container/Dockerfile) and the DaemonSet agree: no image
 * can be built on these machines (no container daemon, no base images), so what binds the two is
 * checked here.
 */

const ROOT = resolve(__dirname, "..", "..");
const dockerfile = readFileSync(join(ROOT, "relay/packaging/container/Dockerfile"), "utf8");
const bundler = readFileSync(join(ROOT, "relay/scripts/bundle.mjs"), "utf8");
const objects = renderKustomization(join(ROOT, "deploy/kubernetes/overlays/entra"));
const spec = podSpecOf(objects.find((o) => o.kind === "DaemonSet") as KubeObject) ?? {};
type Container = { name: string; command?: string[]; securityContext?: Record<string, unknown> };
const container = (list: unknown, name: string) =>
  (list as Container[]).find((c) => c.name === name) as Container;

describe("relay/packaging/container/Dockerfile", () => {
  it("copies the bundle that relay/scripts/bundle.mjs writes", () => {
    const copied = /^COPY\s+(?:--\S+\s+)*(\S+)\s/m.exec(dockerfile)?.[1];
    expect(bundler).toContain(`join(outDir, "${copied}")`);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "\/opt\/quiesce\/quiesce-relay\.js"\]$/m);
  });

  it("runs as the non-root user the DaemonSet runs it as and hands the state directory to", () => {
    const user = /^USER\s+(\d+):(\d+)$/m.exec(dockerfile);
    const relay = container(spec.containers, "relay");
    expect(Number(user?.[1])).toBeGreaterThan(0);
    expect(relay.securityContext?.runAsUser).toBe(Number(user?.[1]));
    expect(relay.securityContext?.runAsGroup).toBe(Number(user?.[2]));
    const init = container(spec.initContainers, "state-dir");
    expect(init.command?.join(" ")).toContain(`chown ${user?.[1]}:${user?.[2]} /var/lib/quiesce`);
  });

  it("defaults QUIESCE_STATE_FILE to the path the DaemonSet sets", () => {
    const env = (
      container(spec.containers, "relay") as { env?: { name: string; value?: string }[] }
    ).env;
    const set = env?.find((e) => e.name === "QUIESCE_STATE_FILE")?.value;
    expect(dockerfile).toContain(`QUIESCE_STATE_FILE=${set}`);
  });
});
