import {
  createDefaultHttpClient,
  createHttpHeaders,
  createPipelineRequest,
  type HttpClient,
  type Pipeline,
  RestError,
} from "@azure/core-rest-pipeline";
import type { TableClient } from "@azure/data-tables";
import { readHttpClient } from "./readHttpClient";

/**
 * One entity by its keys, as `TableClient.getEntity` returns it, sent through the client's own
 * pipeline (its credential, retries on throttling and 5xx, request ids, logging) but without the
 * generated client around it: that layer (operation specs, URL templating, the response mapper,
 * a tracing span, the entity's second pass) cost about as much CPU as the HTTP call itself, and a
 * report during an event makes 6.6 point reads (bench (d)). A missing entity is null, not a
 * thrown 404 (an Error with its stack per absent readiness row).
 */

/** One pool of connections for the tables' clients and these reads (tableClient() passes it). */
export const sharedHttpClient: HttpClient = createDefaultHttpClient();
const readClient = readHttpClient(sharedHttpClient);

// What the generated client sends for queryEntitiesWithPartitionAndRowKey (API version 2019-02-02).
const HEADERS = {
  Accept: "application/json;odata=minimalmetadata",
  "x-ms-version": "2019-02-02",
  DataServiceVersion: "3.0",
};

/**
 * The client's pipeline without the policies that do nothing for a GET without a body and
 * without an operation spec: (de)serialization (no spec; the body is parsed here, once), form
 * data and multipart (no body), tracing (spans go nowhere: the Azure SDK's instrumentation is off,
 * telemetry/azureMonitor.ts), decompression (without its Accept-Encoding the service answers
 * plain JSON). Kept: proxy, abort signals, user agent, request id, the credential, retries,
 * redirects, logging.
 */
const LEFT_OUT = [
  "serializationPolicy",
  "deserializationPolicy",
  "formDataPolicy",
  "multipartPolicy",
  "tracingPolicy",
  "decompressResponsePolicy",
];
const readPipelines = new WeakMap<TableClient, Pipeline>();

function readPipeline(client: TableClient): Pipeline {
  let pipeline = readPipelines.get(client);
  if (!pipeline) {
    pipeline = client.pipeline.clone();
    for (const name of LEFT_OUT) pipeline.removePolicy({ name });
    readPipelines.set(client, pipeline);
  }
  return pipeline;
}

/** A key inside `PartitionKey='...'`: quotes doubled (OData), then URL-encoded, as the SDK does. */
const keyInUrl = (key: string) => encodeURIComponent(key.replaceAll("'", "''"));

export async function pointRead(
  client: TableClient,
  partitionKey: string,
  rowKey: string,
): Promise<Record<string, unknown> | null> {
  const request = createPipelineRequest({
    url: `${client.url}/${encodeURIComponent(client.tableName)}(PartitionKey='${keyInUrl(partitionKey)}',RowKey='${keyInUrl(rowKey)}')`,
    method: "GET",
    headers: createHttpHeaders(HEADERS),
    // tableClient() allows http only for a connection string naming an http endpoint (Azurite),
    // and a token credential's own policy refuses http: an http URL here was allowed already.
    allowInsecureConnection: client.url.startsWith("http://"),
  });
  const response = await readPipeline(client).sendRequest(readClient, request);
  if (response.status === 404) return null;
  const text = response.bodyAsText ?? "";
  if (response.status !== 200)
    throw new RestError(`Table Storage answered ${response.status}: ${text.slice(0, 300)}`, {
      statusCode: response.status,
      code: errorCode(text),
      request,
      response,
    });
  const body: unknown = JSON.parse(text);
  if (typeof body !== "object" || body === null) throw new Error("Table Storage: not an entity");
  return fromOData(body as Record<string, unknown>);
}

/** The service's error code, from its JSON (OData) or XML error body, when it has one. */
function errorCode(text: string): string | undefined {
  const m = /"code"\s*:\s*"([^"]+)"|<Code>([^<]+)<\/Code>/.exec(text);
  return m?.[1] ?? m?.[2];
}

const NAMES: Record<string, string> = {
  PartitionKey: "partitionKey",
  RowKey: "rowKey",
  "odata.etag": "etag",
  Timestamp: "timestamp",
};

/** The SDK's deserialization (type conversion on): what its getEntity returns, property for property. */
function fromOData(o: Record<string, unknown>): Record<string, unknown> {
  const entity: Record<string, unknown> = {};
  let types = false;
  for (const key in o) {
    if (key.endsWith("@odata.type")) types = true;
    else entity[NAMES[key] ?? key] = o[key];
  }
  if (types)
    for (const key in o)
      if (key.endsWith("@odata.type")) {
        const name = key.slice(0, -"@odata.type".length);
        entity[NAMES[name] ?? name] = typed(o[name], o[key]);
      }
  return entity;
}

function typed(value: unknown, type: unknown): unknown {
  switch (type) {
    case "Edm.DateTime":
      return new Date(value as string);
    case "Edm.Int64":
      return BigInt(value as string);
    case "Edm.Guid":
      return { value, type: "Guid" };
    case "Edm.Binary":
      return Buffer.from(value as string, "base64");
    case "Edm.Boolean":
    case "Edm.Double":
    case "Edm.Int32":
    case "Edm.String":
      return value;
    default:
      throw new Error(`Unknown EDM type ${String(type)}`);
  }
}
