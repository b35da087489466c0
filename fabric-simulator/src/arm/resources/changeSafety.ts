import { z } from "zod";
import { acquire } from "../changeSafety";
import { type ArmAnswer, armError, invalidContent, ok } from "../errors";
import { sameName } from "../ids";
import type { ArmCall } from "./call";

/**
 * `PolicyTokens_Acquire` (Microsoft.Authorization, 2025-03-01) and the change records of
 * Microsoft.ChangeSafety (2026-01-01-preview), at subscription or resource-group scope: create
 * or replace (PUT), read (GET), update (PATCH). Request bodies are checked against the specs'
 * required fields; answers are the specs' shapes (test/contracts/fixtures/change-safety).
 */

const PolicyTokenRequest = z.looseObject({
  operation: z.looseObject({ uri: z.string(), httpMethod: z.string() }),
  changeReference: z.string().nullish(),
});

export async function acquirePolicyTokenHandler(call: ArmCall): Promise<ArmAnswer> {
  const body = await call.body();
  if (!body.ok) return body.answer;
  const req = PolicyTokenRequest.safeParse(body.value);
  if (!req.success) return invalidContent("operation.uri and operation.httpMethod are required");
  let answer: Record<string, unknown> = {};
  call.arm.updateChangeSafety((s) => {
    const r = acquire(
      s,
      {
        uri: req.data.operation.uri,
        httpMethod: req.data.operation.httpMethod,
        ...(req.data.changeReference ? { changeReference: req.data.changeReference } : {}),
      },
      Date.now(),
    );
    answer = r.body;
    return r.state;
  });
  return ok(answer);
}

const NAME = /^[a-zA-Z0-9-]{3,100}$/;
const Properties = z.looseObject({
  changeType: z.string(),
  rolloutType: z.string(),
  changeDefinition: z.looseObject({
    name: z.string(),
    kind: z.string(),
    details: z.record(z.string(), z.unknown()),
  }),
  anticipatedStartTime: z.iso.datetime({ offset: true }),
  anticipatedEndTime: z.iso.datetime({ offset: true }),
  stageMap: z.looseObject({}).optional(),
});
const Put = z.looseObject({ properties: Properties });
const Patch = z.looseObject({ properties: z.looseObject({}).optional() });
/** What a PATCH may change (ChangeRecordPropertiesUpdate). */
const MUTABLE = [
  "changeType",
  "description",
  "comments",
  "stageMap",
  "parameters",
  "rolloutType",
  "changeDefinition",
  "releaseLabel",
  "anticipatedStartTime",
  "anticipatedEndTime",
  "orchestrationTool",
  "links",
  "additionalData",
];

function recordId(call: ArmCall): string {
  const { subscriptionId, resourceGroupName, changeRecordName } = call.params;
  const rg = resourceGroupName ? `/resourceGroups/${resourceGroupName}` : "";
  return `/subscriptions/${subscriptionId}${rg}/providers/Microsoft.ChangeSafety/changeRecords/${changeRecordName}`;
}

function notFound(call: ArmCall): ArmAnswer {
  return armError(
    404,
    "ResourceNotFound",
    `The Resource 'Microsoft.ChangeSafety/changeRecords/${call.params.changeRecordName}' was not found.`,
  );
}

export async function putChangeRecord(call: ArmCall): Promise<ArmAnswer> {
  if (!NAME.test(call.params.changeRecordName ?? ""))
    return armError(
      400,
      "InvalidResourceName",
      "A change record's name is 3-100 letters, digits or '-'.",
    );
  const body = await call.body();
  if (!body.ok) return body.answer;
  const put = Put.safeParse(body.value);
  if (!put.success)
    return invalidContent(
      `properties: changeType, rolloutType, changeDefinition {name, kind, details}, anticipatedStartTime and anticipatedEndTime are required (${put.error.issues[0]?.path.join(".")})`,
    );
  const id = recordId(call);
  const existed = call.arm.changeSafety().records[id.toLowerCase()] !== undefined;
  const record = {
    id,
    name: call.params.changeRecordName,
    type: "Microsoft.ChangeSafety/changeRecords",
    properties: {
      ...put.data.properties,
      provisioningState: "Succeeded",
      // Read-only: with no stage map there is no progression to follow.
      status: put.data.properties.stageMap ? "Initialized" : "NotApplicable",
      stageMapSnapshot: [],
    },
  };
  call.arm.updateChangeSafety((s) => ({
    ...s,
    records: { ...s.records, [id.toLowerCase()]: record },
  }));
  return { status: existed ? 200 : 201, body: record };
}

export function getChangeRecord(call: ArmCall): ArmAnswer {
  const record = call.arm.changeSafety().records[recordId(call).toLowerCase()];
  return record ? ok(record) : notFound(call);
}

export async function patchChangeRecord(call: ArmCall): Promise<ArmAnswer> {
  const key = recordId(call).toLowerCase();
  const record = call.arm.changeSafety().records[key] as
    | { properties: Record<string, unknown> }
    | undefined;
  if (!record) return notFound(call);
  const body = await call.body();
  if (!body.ok) return body.answer;
  const patch = Patch.safeParse(body.value);
  if (!patch.success) return invalidContent("properties must be an object");
  const changes = Object.entries(patch.data.properties ?? {}).filter(([k]) =>
    MUTABLE.some((m) => sameName(m, k)),
  );
  const next = { ...record, properties: { ...record.properties, ...Object.fromEntries(changes) } };
  call.arm.updateChangeSafety((s) => ({ ...s, records: { ...s.records, [key]: next } }));
  return ok(next);
}
