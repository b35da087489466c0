import { createServer } from "node:net";
import {
  createHttpHeaders,
  createPipelineRequest,
  type HttpClient,
  type PipelineRequest,
} from "@azure/core-rest-pipeline";
import { describe, expect, it } from "vitest";
import { readHttpClient } from "./readHttpClient";

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function recorder(): HttpClient & { seen: PipelineRequest[] } {
  const seen: PipelineRequest[] = [];
  return {
    seen,
    sendRequest: async (request) => {
      seen.push(request);
      return { request, status: 204, headers: createHttpHeaders() };
    },
  };
}

describe("the point reads' HTTP client", () => {
  it("hands anything but a plain GET to the SDK's client, unchanged", async () => {
    const fallback = recorder();
    const client = readHttpClient(fallback);
    const url = "http://127.0.0.1:1/t";
    const requests = [
      createPipelineRequest({ url, method: "PUT", body: "{}", allowInsecureConnection: true }),
      createPipelineRequest({ url, method: "GET", timeout: 5000, allowInsecureConnection: true }),
      createPipelineRequest({
        url,
        method: "GET",
        proxySettings: { host: "http://proxy", port: 8080 },
        allowInsecureConnection: true,
      }),
    ];
    for (const r of requests) await client.sendRequest(r);
    expect(fallback.seen).toEqual(requests);
  });

  it("refuses http unless the request allows it, as the SDK's client does", async () => {
    const client = readHttpClient(recorder());
    const request = createPipelineRequest({ url: "http://127.0.0.1:1/t", method: "GET" });
    await expect(client.sendRequest(request)).rejects.toThrow(/allowInsecureConnection is false/);
  });

  it("fails to connect with the socket's code, which the pipeline's retry policy retries", async () => {
    const client = readHttpClient(recorder());
    const request = createPipelineRequest({
      url: `http://127.0.0.1:${await closedPort()}/t`,
      method: "GET",
      allowInsecureConnection: true,
    });
    await expect(client.sendRequest(request)).rejects.toMatchObject({
      name: "RestError",
      code: "ECONNREFUSED",
    });
  });

  it("an aborted read stays an AbortError", async () => {
    const client = readHttpClient(recorder());
    const abort = new AbortController();
    abort.abort();
    const request = createPipelineRequest({
      url: `http://127.0.0.1:${await closedPort()}/t`,
      method: "GET",
      allowInsecureConnection: true,
      abortSignal: abort.signal,
    });
    await expect(client.sendRequest(request)).rejects.toMatchObject({ name: "AbortError" });
  });
});
