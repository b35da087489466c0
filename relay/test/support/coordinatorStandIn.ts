import type { IncomingMessage } from "node:http";
import { type Directive, parseRelayReport, type RelayReport } from "@quiesce/protocol/relay";
import { LoopbackServer } from "./loopbackServer";

const FIELDS_OF_1_0 = [
  "protocol",
  "cluster",
  "vm",
  "relay",
  "document",
  "hooks",
  "approvals",
  "sentAt",
];

/**
 * A coordinator for relay tests: parses every report with the shared protocol schema (a report
 * the real coordinator would refuse fails the test), records it, and answers with the directives
 * the test queues. `down` makes it drop connections, as an unreachable Function app would.
 */
export class CoordinatorStandIn extends LoopbackServer {
  readonly reports: RelayReport[] = [];
  readonly authorizations: string[] = [];
  readonly invalid: string[] = [];
  down = false;
  nextReportInSeconds = 1;
  /** Directives sent with every answer while set (a coordinator repeats them while the lease holds). */
  standing: Directive[] = [];
  /** Directives sent once, with the next answer (raw: a test may send kinds no relay knows). */
  once: (Directive | Record<string, unknown>)[] = [];
  /** The protocol version this coordinator claims. */
  protocol = "1.0";
  /** Fields a newer coordinator adds to its answer. */
  extraFields: Record<string, unknown> = {};
  /** Refuse report fields a 1.0 coordinator did not know, as its strict schema did. */
  strict10 = false;
  /**
   * Attestation as a 1.2 coordinator under require: a report without `token` is refused with a
   * 403 and a challenge; one whose proof's document was signed for the challenge gets the token.
   */
  requireAttestation: { token: string; nonce: string } | undefined;

  private attest(r: RelayReport): Record<string, unknown> | undefined {
    const want = this.requireAttestation;
    if (!want) return undefined;
    if (r.attestation?.token === want.token) return { standing: "bound" };
    const proof = r.attestation?.proof;
    const signedFor =
      proof && "document" in proof
        ? Buffer.from(proof.document.signature, "base64").toString("utf8").split(":")[2]
        : undefined;
    if (proof?.nonce === want.nonce && signedFor === want.nonce)
      return { standing: "bound", token: want.token };
    return { standing: "unbound", challenge: { nonce: want.nonce } };
  }

  last(): RelayReport | undefined {
    return this.reports[this.reports.length - 1];
  }

  protected handle(req: IncomingMessage, res: import("node:http").ServerResponse) {
    if (this.down) {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url !== "/api/relay/report" || req.method !== "POST") {
        res.writeHead(404).end();
        return;
      }
      this.authorizations.push(req.headers.authorization ?? "");
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      const unknown = Object.keys(body).filter((k) => !FIELDS_OF_1_0.includes(k));
      if (this.strict10 && unknown.length > 0) {
        // The words a 1.0 coordinator answered with (zod's strictObject through describeZodError).
        const error = `invalid report: (body): Unrecognized key: "${unknown[0]}"`;
        this.invalid.push(error);
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error }));
        return;
      }
      const parsed = parseRelayReport(body);
      if (!parsed.ok) {
        this.invalid.push(parsed.error);
        res
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ error: parsed.error }));
        return;
      }
      this.reports.push(parsed.value);
      const attestation = this.attest(parsed.value);
      if (attestation && attestation.standing !== "bound" && !attestation.token) {
        res.writeHead(403, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "not from the relay bound to this VM", attestation }));
        return;
      }
      const directives = [...this.standing, ...this.once];
      this.once = [];
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          ...this.extraFields,
          ...(attestation ? { attestation } : {}),
          protocol: this.protocol,
          applied: true,
          nextReportInSeconds: this.nextReportInSeconds,
          directives,
        }),
      );
    });
  }
}
