import type { AnswerAttestation, ReportAttestation } from "@quiesce/protocol/relay";
import type { ImdsClient } from "../imds/client";
import type { Logger } from "../log";

/**
 * The relay's side of attestation (docs/auth.md, "Attestation"): it answers the coordinator's
 * challenge with the IMDS attested document for that nonce, and then sends the binding token it
 * was given with every report. Both live only in this process: a restarted relay proves itself
 * again, which is what lets the coordinator tell a restart from a neighbour (a new bootId).
 * The relay checks nothing itself; the coordinator verifies the document.
 */
export class Attester {
  private token: string | undefined;
  private nonce: string | undefined;

  constructor(
    private readonly imds: Pick<ImdsClient, "readAttestedDocument">,
    private readonly log: Logger,
  ) {}

  /** The report's field: the token, and a proof while a challenge is open (one IMDS read). */
  async field(signal?: AbortSignal): Promise<ReportAttestation> {
    const token = this.token ? { token: this.token } : {};
    const nonce = this.nonce;
    if (!nonce) return token;
    const read = await this.imds.readAttestedDocument(nonce, signal);
    if ("error" in read) this.log.warn("attested document unavailable", { error: read.error });
    return {
      ...token,
      proof: "error" in read ? { nonce, error: read.error } : { nonce, document: read.document },
    };
  }

  /**
   * What the coordinator said (an answer, or a refusal's body). True when it asked for a proof:
   * the reporter then reports again at once instead of at the next heartbeat.
   */
  onAnswer(answer: AnswerAttestation | undefined, sent: ReportAttestation): boolean {
    if (!answer) {
      // A coordinator without attestation: nothing to prove to it.
      this.nonce = undefined;
      return false;
    }
    if (answer.token) {
      this.token = answer.token;
      this.log.info("bound to this VM by its attested document");
    }
    if (answer.challenge) {
      const again = this.nonce !== answer.challenge.nonce;
      this.nonce = answer.challenge.nonce;
      if (sent.proof && answer.detail)
        this.log.warn("attestation not accepted", { detail: answer.detail });
      return again;
    }
    if (sent.proof) {
      this.nonce = undefined;
      if (!answer.token && answer.detail)
        this.log.warn("attestation not accepted", { detail: answer.detail });
    }
    return false;
  }
}
