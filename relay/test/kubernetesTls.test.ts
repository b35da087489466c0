import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ManualClock, startFabricSimulator } from "@quiesce/fabric-simulator";
import { expect, it } from "vitest";
import {
  kubernetesRunner,
  payload,
  RecordingHook,
  run,
  SS,
  writeToken,
} from "./support/kubernetes";
import { tempDir } from "./support/wait";

/**
 * The built-in drain over HTTPS, as in a pod: the API server's certificate is checked against
 * QUIESCE_KUBERNETES_CA_FILE (a throw-away self-signed certificate made by openssl).
 */

it("checks the API server's certificate against the CA file", async () => {
  const dir = await tempDir();
  const d = dir.path;
  try {
    const selfSigned = (name: string) =>
      execFileSync(
        "openssl",
        [
          ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"],
          ...["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
          ...["-keyout", join(d, `${name}.key`), "-out", join(d, `${name}.crt`)],
        ],
        { stdio: "ignore" },
      );
    try {
      selfSigned("ca");
      selfSigned("other");
    } catch {
      return; // no openssl on this machine: the plain-HTTP tests still stand
    }
    const tls = {
      cert: readFileSync(join(d, "ca.crt"), "utf8"),
      key: readFileSync(join(d, "ca.key"), "utf8"),
    };
    const sim = await startFabricSimulator({
      clock: new ManualClock(),
      kubernetes: { tls },
      topology: {
        groups: [{ kind: "scaleSetPlacementGroup", name: "p", scaleSetName: SS, vms: 1 }],
      },
    });
    try {
      expect(sim.kubernetes.url).toMatch(/^https:/);
      const token = writeToken(sim, d);
      const p = payload(sim, `${SS}_0`, "drain");
      const trusting = kubernetesRunner(sim, token, new RecordingHook(), {
        QUIESCE_KUBERNETES_CA_FILE: join(d, "ca.crt"),
      });
      expect((await run(trusting, p, 5_000)).result).toBe("succeeded");
      const other = kubernetesRunner(sim, token, new RecordingHook(), {
        QUIESCE_KUBERNETES_CA_FILE: join(d, "other.crt"),
      });
      const refused = await run(other, p, 2_000);
      expect(refused.result).toBe("failed");
      expect(refused.detail).toMatch(/certificate/i);
    } finally {
      await sim.stop();
    }
  } finally {
    await dir.remove();
  }
});
